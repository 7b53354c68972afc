// Package browsertest drives the plan board in a real headless Chromium: the page shows the
// plans, follows an Eino agent's changes live, and lets a person approve a plan and hand
// steps over, with stale pages refused. It is a module of its own so that the board itself
// depends on no browser automation.
//
// The tests look for Chromium at $PLAN_CHROMIUM, /usr/bin/chromium, chromium,
// chromium-browser or google-chrome, and skip when there is none, except under CI=true,
// where they fail. With BOARD_SCREENSHOTS=DIR they write the page in English and Chinese
// to DIR/board-en.png and DIR/board-zh.png.
package browsertest
