package main

import (
	"context"
	"os"
	"strconv"
	"testing"
)

// TestSloppySession runs the session with careful and with sloppy models and reports the
// turns each took: SLOPPY_STEPS (default 60) steps, with 1 and with 4 workers. Every session
// completes the plan, and (with a build that reads the mistakes) no sloppy call drops its
// guard.
func TestSloppySession(t *testing.T) {
	steps := 60
	if s, err := strconv.Atoi(os.Getenv("SLOPPY_STEPS")); err == nil && s > 0 {
		steps = s
	}
	for _, workers := range []int{1, 4} {
		for _, sloppy := range []bool{false, true} {
			rep, err := runSloppySession(context.Background(), steps, workers, sloppy)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("steps %d workers %d sloppy %-5v: turns %4d, sloppy calls %4d, refused %4d, guards dropped %4d, completed %d, status %q",
				steps, workers, sloppy, rep.Turns, rep.Stats.Calls, rep.Stats.Refused, rep.Stats.Unguarded, rep.Completed, rep.Status)
			if rep.Completed != steps || rep.Status != "done" {
				t.Errorf("the session did not finish: %+v", rep)
			}
		}
	}
}
