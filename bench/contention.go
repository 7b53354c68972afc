package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/einoplan/plan"
)

// contentionRun is one contention measurement.
type contentionRun struct {
	writes, conflicts int
	elapsed           time.Duration
	lost              int
}

// contend runs g goroutines for d, each repeating a guarded write (read the plan, write it
// back with last_known_revision, retry on revision_conflict) on one shared plan or on a
// plan of its own.
func contend(ctx context.Context, kind backendKind, g int, shared bool, d time.Duration) (contentionRun, error) {
	o, err := kind.open()
	if err != nil {
		return contentionRun{}, err
	}
	defer o.close()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: o.backend, BaseDir: plansDir})
	if err != nil {
		return contentionRun{}, err
	}
	_, _, body := entryText(3)
	names := []string{"shared"}
	if !shared {
		names = names[:0]
		for i := 0; i < g; i++ {
			names = append(names, fmt.Sprintf("writer-%02d", i))
		}
	}
	zero := int64(0)
	for _, name := range names {
		if _, err := store.Put(ctx, plan.Update{Name: name, Content: &body, IfRevision: &zero}); err != nil {
			return contentionRun{}, err
		}
	}

	type tally struct {
		writes, conflicts int
		err               error
	}
	tallies := make([]tally, g)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w := 0; w < g; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			name := names[w%len(names)]
			t := &tallies[w]
			for k := 0; time.Now().Before(deadline); k++ {
				p, err := store.Get(ctx, name)
				if err != nil {
					t.err = err
					return
				}
				next := fmt.Sprintf("%s- [ ] write %d of writer %d\n", body, k, w)
				_, err = store.Put(ctx, plan.Update{Name: name, Content: &next, IfRevision: &p.Revision})
				switch {
				case err == nil:
					t.writes++
				case plan.CodeOf(err) == plan.CodeRevisionConflict:
					t.conflicts++
				default:
					t.err = err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	run := contentionRun{elapsed: time.Since(start)}
	for _, t := range tallies {
		if t.err != nil {
			return run, t.err
		}
		run.writes += t.writes
		run.conflicts += t.conflicts
	}
	// Every successful guarded write bumps the revision by one, so the final revisions
	// account for every write; a lost update would leave them short.
	var revs int64
	for _, name := range names {
		p, err := store.Get(ctx, name)
		if err != nil {
			return run, err
		}
		revs += p.Revision - 1
	}
	run.lost = run.writes - int(revs)
	return run, nil
}

// contentionTable is table 4: throughput and conflicts of guarded writes.
func contentionTable(ctx context.Context, cfg config) (*table, error) {
	t := newTable("4. Contention: guarded writes through Store",
		"Backend", "Target", "Goroutines", "Writes/s", "Conflicts per attempt", "Lost updates")
	for _, kind := range cfg.kinds {
		for _, shared := range []bool{true, false} {
			target := "distinct plans"
			if shared {
				target = "one plan"
			}
			for _, g := range cfg.goroutines {
				run, err := contend(ctx, kind, g, shared, cfg.contention)
				if err != nil {
					return nil, fmt.Errorf("contention %s %s %d: %w", kind.name, target, g, err)
				}
				rate := 0.0
				if run.writes+run.conflicts > 0 {
					rate = 100 * float64(run.conflicts) / float64(run.writes+run.conflicts)
				}
				t.add(kind.name, target, fmt.Sprint(g), fmtInt(int(float64(run.writes)/run.elapsed.Seconds())), fmtPct(rate), fmt.Sprint(run.lost))
			}
		}
	}
	t.note("Each goroutine repeats for %v: Store.Get, then Store.Put of a changed body with IfRevision (last_known_revision) set to the revision read; a revision_conflict counts as a conflict and the loop retries from the read. Writes/s counts successful writes only.", cfg.contention)
	t.note("Lost updates = successful writes minus the revisions the plans advanced; it must be 0. All mutations on one (Backend, BaseDir) share one process lock (and LocalBackend's file lock), so writes to distinct plans are serialized too; distinct plans never conflict.")
	return t, nil
}
