package main

import (
	"context"
	"testing"
)

// The cost per step tables run every setup on the same steps, each completing all of them,
// the lean worker pays less per step than the full tool set, a worker that finishes a step
// and takes the next in the message of its next work call makes two model calls more than
// one with no plan tools, and a provider's cache serves
// part of every session's input, never all of it.
func TestCostPerStepComparesEverySetup(t *testing.T) {
	c, err := newCounter()
	if err != nil {
		t.Fatal(err)
	}
	tables, err := costPerStepTables(context.Background(), c, 6)
	if err != nil {
		t.Fatal(err)
	}
	for _, tbl := range tables {
		if err := tbl.check(); err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + costRowsText(tbl))
	}
	rows := map[string]costRow{}
	for _, kind := range costKinds {
		r, err := runCostSetup(context.Background(), kind, 6, 3, c)
		if err != nil {
			t.Fatal(err)
		}
		rows[kind] = r
	}
	if full, lean := rows["plan"], rows["plan, lean worker"]; lean.in >= full.in || lean.perCallTax >= full.perCallTax {
		t.Errorf("lean %+v, full %+v", lean, full)
	}
	for _, kind := range []string{"plan", "plan, lean worker"} {
		if ride, bare := rows[kind], rows["no plan tools"]; ride.calls != bare.calls+2 {
			t.Errorf("%s: %d model calls, no plan tools %d: a step transition rides along with a work call", kind, ride.calls, bare.calls)
		}
	}
	if bare := rows["no plan tools"]; bare.planCalls != 0 || bare.toolCalls != 18 || bare.cached == 0 || bare.cached >= bare.in {
		t.Errorf("no plan tools %+v", bare)
	}
}
