package main

import (
	"context"
	"testing"

	"github.com/einoplan/plan"
)

// TestResyncWithinTenPercent: after one other agent's step move in the 60-step plan,
// read_plan with since_revision costs at most 10% of the tokens of a full read_plan.
func TestResyncWithinTenPercent(t *testing.T) {
	c, err := newCounter()
	if err != nil {
		t.Fatal(err)
	}
	calls, err := resyncCalls(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tokens := resyncTokens(c, calls)
	t.Logf("full read_plan %d o200k tokens, since_revision %d (%.1f%%)", tokens[0], tokens[1], 100*float64(tokens[1])/float64(tokens[0]))
	if 10*tokens[1] > tokens[0] {
		t.Errorf("since_revision costs %d tokens, over 10%% of a full read_plan (%d)", tokens[1], tokens[0])
	}
}

// BenchmarkResync times both ways to catch up, side by side on one plan, and reports
// their tokens (arguments plus result).
func BenchmarkResync(b *testing.B) {
	ctx := context.Background()
	c, err := newCounter()
	if err != nil {
		b.Fatal(err)
	}
	calls, err := resyncCalls(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tokens := resyncTokens(c, calls)
	worker, err := resyncSetup(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for i, r := range resyncArgs {
		b.Run(r.label, func(b *testing.B) {
			b.ReportMetric(float64(tokens[i]), "o200k/op")
			for b.Loop() {
				if _, err := worker.call(plan.ToolReadPlan, r.args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
