// Package einoext holds the compatibility tests of plan with eino-ext's local file system
// backend (github.com/cloudwego/eino-ext/adk/backend/local): as an agent's Workspace, and as
// the plan Backend through a small adapter that adds Delete. It lives in its own module so
// the root module depends on nothing beyond eino, sonic and testify.
package einoext
