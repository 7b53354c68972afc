package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestGraphSession runs the graph session (bench/graph.go) with this library and with
// Eino's plantask side by side and prints the table of BENCHMARKS.md's section "Plans as
// graphs". Each must start no step early, finish no step twice; this library's must finish
// the dead worker's step about HoldTTL after it died.
func TestGraphSession(t *testing.T) {
	c, err := newCounter()
	if err != nil {
		t.Fatal(err)
	}
	const ttl = 500 * time.Millisecond
	var rows []string
	for _, kind := range []string{kindPlan, kindPlantask} {
		rep, err := runGraphSession(context.Background(), c, graphSpec{Kind: kind, Workers: 4, TTL: ttl, Poll: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		recovery := "never"
		if rep.Recovery >= 0 {
			recovery = rep.Recovery.Round(10 * time.Millisecond).String()
		}
		rows = append(rows, fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |", kind, rep.Turns, rep.TokensIn+rep.TokensOut,
			rep.Errors["step_blocked"], rep.Conflicts, rep.Early, rep.Twice, rep.Left, rep.Aborted, recovery))
		if kind == kindPlan {
			if rep.Early != 0 || rep.Twice != 0 || rep.Left != 0 || rep.Aborted != 0 {
				t.Errorf("plan: %d early, %d twice, %d left; want 0, 0, 0", rep.Early, rep.Twice, rep.Left)
			}
			if rep.Recovery < ttl || rep.Recovery > 3*ttl {
				t.Errorf("plan: the dead worker's step was done again after %v, want about %v", rep.Recovery, ttl)
			}
		}
	}
	t.Log("\n| tools | turns | tokens | step_blocked answers | conflicts | started too early | done twice | left | runs aborted | dead step done again after |\n" +
		"| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n" + strings.Join(rows, "\n"))
}
