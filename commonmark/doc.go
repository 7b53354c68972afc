// Package commonmark checks the plan package's reading of Markdown against goldmark, a
// CommonMark implementation with GFM task lists. It lives in a module of its own so that
// the plan module does not depend on goldmark; it has no code besides its tests.
package commonmark
