package main

import (
	"context"
	"fmt"

	"github.com/einoplan/plan/internal/localfs"
)

// syncCalls is how many calls of each operation table 3c counts.
const syncCalls = 20

// syncsTable is table 3c: the fsync calls one operation makes on LocalBackend, this library
// against plantask, counted by the backend itself (internal/localfs.Syncs).
func syncsTable(ctx context.Context, n int) (*table, error) {
	e, err := newOpEnv(ctx, localKind(), n)
	if err != nil {
		return nil, err
	}
	defer e.close()
	t := newTable("3c. fsync calls per operation on LocalBackend", "Entries", "Operation", "plan Store", "plan tool", "plantask tool")
	var above []string
	for _, f := range append(e.ops(ctx), e.listOp(ctx)) {
		var per [3]float64
		for c, run := range []func(int) error{f.store, f.tool, f.plantask} {
			before := localfs.Syncs()
			for i := range syncCalls {
				if err := run(i); err != nil {
					return nil, fmt.Errorf("%s: %w", f.name, err)
				}
			}
			per[c] = float64(localfs.Syncs()-before) / syncCalls
			for _, after := range []func() error{f.afterOurs, f.afterTask} {
				if after != nil {
					if err := after(); err != nil {
						return nil, err
					}
				}
			}
		}
		t.add(fmtInt(n), f.name, fmt.Sprintf("%.1f", per[0]), fmt.Sprintf("%.1f", per[1]), fmt.Sprintf("%.1f", per[2]))
		if floor := durableFloor(f.name); per[0] > floor || per[1] > floor {
			above = append(above, f.name)
		}
	}
	t.note("Average over %d calls of each operation (the root test TestEveryChangeCostsOneDurableWrite also counts the writes that prune history); every LocalBackend write of a plan syncs the new file and its folder (2 calls), the fewest that make an atomic replace survive a power failure. History entries are written and pruned without syncs: an entry lost in a crash is never shown.", syncCalls)
	t.note("plantask runs on the same LocalBackend: TaskCreate writes the task and its high-water mark (4 calls), TaskUpdate the task (2).")
	if len(above) == 0 {
		t.note("Goal: one durable write of the plan per change (2 syncs), none per read or list: met.")
	} else {
		t.note("Goal: one durable write of the plan per change (2 syncs), none per read or list: missed for %v.", above)
	}
	return t, nil
}

// durableFloor is the fewest syncs operation op can make: a change writes its plan once.
func durableFloor(op string) float64 {
	switch op {
	case "create", "status update":
		return 2
	}
	return 0
}
