package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	redisbackend "github.com/einoplan/plan/backends/redis"
	"github.com/einoplan/plan/backends/redis/redistest"
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
	err := eachContention(ctx, cfg, cfg.kinds, func(kind, target string, g int, perSecond, conflictPct float64, lost int) {
		t.add(kind, target, fmt.Sprint(g), fmtInt(int(perSecond)), fmtPct(conflictPct), fmt.Sprint(lost))
	})
	if err != nil {
		return nil, err
	}
	t.note("Each goroutine repeats for %v: Store.Get, then Store.Put of a changed body with IfRevision (last_known_revision) set to the revision read; a revision_conflict counts as a conflict and the loop retries from the read. Writes/s counts successful writes only.", cfg.contention)
	t.note("Lost updates = successful writes minus the revisions the plans advanced; it must be 0. Each plan has its own lock, in the process and (LocalBackend on Linux) across processes, so writes to distinct plans never wait for each other and never conflict.")
	return t, nil
}

// eachContention measures every cell of table 4 for kinds, one plan and distinct plans at
// each goroutine count, and hands each to cell.
func eachContention(ctx context.Context, cfg config, kinds []backendKind, cell func(kind, target string, g int, perSecond, conflictPct float64, lost int)) error {
	for _, kind := range kinds {
		for _, shared := range []bool{true, false} {
			target := "distinct plans"
			if shared {
				target = "one plan"
			}
			for _, g := range cfg.goroutines {
				run, err := contend(ctx, kind, g, shared, cfg.contention)
				if err != nil {
					return fmt.Errorf("contention %s %s %d: %w", kind.name, target, g, err)
				}
				rate := 0.0
				if run.writes+run.conflicts > 0 {
					rate = 100 * float64(run.conflicts) / float64(run.writes+run.conflicts)
				}
				cell(kind.name, target, g, float64(run.writes)/run.elapsed.Seconds(), rate, run.lost)
			}
		}
	}
	return nil
}

// contentionRows measures table 4 alone for scripts/bench-contention.sh, which runs it on two
// builds of the library in turn: one tab-separated line per cell (backend, target,
// goroutines, writes per second, conflicts per attempt in percent, lost updates). With
// withRedis, a redis-server from PATH on a loopback port is measured too, when installed.
func contentionRows(ctx context.Context, w io.Writer, cfg config, withRedis bool) error {
	kinds := cfg.kinds
	if withRedis {
		if _, err := exec.LookPath("redis-server"); err == nil {
			kind, stop, err := redisKind()
			if err != nil {
				return err
			}
			defer stop()
			kinds = append(kinds, kind)
		}
	}
	return eachContention(ctx, cfg, kinds, func(kind, target string, g int, perSecond, conflictPct float64, lost int) {
		fmt.Fprintf(w, "%s\t%s\t%d\t%.0f\t%.1f\t%d\n", kind, target, g, perSecond, conflictPct, lost)
	})
}

// redisKind is a RedisBackend on one redis-server started on a free loopback port; every
// open gets a client of its own and a fresh key prefix. stop ends the server by its PID.
func redisKind() (backendKind, func(), error) {
	dir, err := os.MkdirTemp("", "plan-bench-redis-")
	if err != nil {
		return backendKind{}, nil, err
	}
	srv, err := redistest.Start(dir)
	if err != nil {
		os.RemoveAll(dir)
		return backendKind{}, nil, err
	}
	stop := func() { srv.Stop(); os.RemoveAll(dir) }
	return redisKindAt(srv.Addr()), stop, nil
}

// redisKindAt is a RedisBackend on the redis-server at addr, a fresh key prefix per open.
func redisKindAt(addr string) backendKind {
	return backendKind{name: "RedisBackend", open: func() (*opened, error) {
		client := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
		b, err := redisbackend.New(context.Background(), client, redisbackend.WithPrefix("bench:"+rand.Text()[:8]+":"))
		if err != nil {
			client.Close()
			return nil, err
		}
		return &opened{backend: b, close: func() { client.Close() },
			seed: func(p, content string) error {
				return b.Write(context.Background(), &driver.WriteRequest{FilePath: p, Content: content})
			}}, nil
	}}
}
