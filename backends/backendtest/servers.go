package backendtest

import (
	"fmt"
	"os"
	"testing"
)

// A backend's tests start real servers. Where one will not start (its binaries are not
// installed), a test that needs it skips, except under CI=true, where that is a failure
// rather than a silent pass.

// SkipWithoutServer ends the test when err says the server it needs (what, as "Redis
// server") could not start; with err nil it does nothing.
func SkipWithoutServer(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and no %s for this test: %v", what, err)
	}
	t.Skipf("no %s: %v", what, err)
}

// RunWithoutServer ends a TestMain whose shared server (what, as "Redis server") could not
// start, for err: under CI=true it fails the run; otherwise it runs the tests, those that
// need the server skipping.
func RunWithoutServer(m *testing.M, what string, err error) int {
	if os.Getenv("CI") == "true" {
		fmt.Fprintf(os.Stderr, "FAIL: CI=true and no %s for the tests: %v\n", what, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "skipping the tests that need a %s: %v\n", what, err)
	return m.Run()
}
