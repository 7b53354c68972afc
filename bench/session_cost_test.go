package main

import (
	"context"
	"testing"
)

// The cost per step table runs every setup on the same steps, each completing all of them,
// and the lean worker pays less per step than the full tool set.
func TestCostPerStepComparesEverySetup(t *testing.T) {
	c, err := newCounter()
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := costPerStepTable(context.Background(), c, 6)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.check(); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + costRowsText(tbl))
	rows := map[string]costRow{}
	for _, kind := range costKinds {
		r, err := runCostSetup(context.Background(), kind, 6, c)
		if err != nil {
			t.Fatal(err)
		}
		rows[kind] = r
	}
	if full, lean := rows["plan"], rows["plan, lean worker"]; lean.in >= full.in || lean.perCallTax >= full.perCallTax {
		t.Errorf("lean %+v, full %+v", lean, full)
	}
	if bare := rows["no plan tools"]; bare.planCalls != 0 || bare.toolCalls != 6 {
		t.Errorf("no plan tools %+v", bare)
	}
}
