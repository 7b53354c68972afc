package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/postgres"
	"github.com/einoplan/plan/backends/postgres/pgtest"
)

// Guarded writes per second on one PostgreSQL server, by 1, 8 and 32 concurrent writers,
// each with a pool of one connection, a Backend and a Store of its own, as separate
// machines would have. A guarded write reads a plan and writes it back with
// last_known_revision, retrying on revision_conflict; one op is one successful write. The
// server keeps its default durability (fsync on, synchronous_commit on), so every commit
// waits for the WAL to reach disk, as in production. Layouts: every writer on 1 plan, or
// writers rotating over 16 plans of one folder, with the change feed's trigger as deployed
// and, for comparison, disabled (PostgreSQL serialises the commits of transactions that
// NOTIFY, so they share no WAL flush). Next to them, a bare single-row UPDATE
// round trip (each writer its own row) at the same concurrency on the same server: the most
// committed writes per second the server allows.
//
//	go test -run '^$' -bench Postgres -benchtime 2s

var pgWriters = []int{1, 8, 32}

type pgLayout struct {
	name   string
	plans  int
	noFeed bool // the change feed's trigger disabled, to show what its NOTIFY costs
}

var pgLayouts = []pgLayout{{"1plan", 1, false}, {"16plans", 16, false}, {"16plans-nofeed", 16, true}}

// postgresServer starts a server with default durability for one benchmark or test,
// stopped by PID when it ends, or skips when PostgreSQL is not installed (fails under
// CI=true).
func postgresServer(tb testing.TB) *pgtest.Server {
	tb.Helper()
	srv, err := pgtest.Start("fsync=on", "max_connections=200")
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true and no PostgreSQL: %v", err)
		}
		tb.Skipf("no PostgreSQL: %v", err)
	}
	tb.Cleanup(srv.Remove)
	return srv
}

func pgPool(tb testing.TB, url string, conns int32) *pgxpool.Pool {
	tb.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.MaxConns = conns
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	return p
}

// pgSchema is a schema of the benchmark's own, dropped when it ends.
func pgSchema(tb testing.TB, url string) string {
	schema := fmt.Sprintf("bench_%d", time.Now().UnixNano())
	tb.Cleanup(func() {
		ctx := context.Background()
		if c, err := pgx.Connect(ctx, url); err == nil {
			c.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
			c.Close(ctx)
		}
	})
	return schema
}

func BenchmarkPostgresGuardedWrites(b *testing.B) {
	srv := postgresServer(b)
	for _, lay := range pgLayouts {
		for _, w := range pgWriters {
			b.Run(fmt.Sprintf("%s/writers=%d", lay.name, w), func(b *testing.B) {
				pgGuardedWrites(b, srv.URL(), lay, w)
			})
		}
	}
}

// pgGuardedWrites runs b.N successful guarded writes spread over writers; writer w's k-th
// write goes to plan (w+k) mod plans. In 5 rounds, each batch of writes is followed by as
// many bare UPDATEs at the same concurrency, so both rates share whatever else the machine
// is doing; the ratio of the two is reported.
func pgGuardedWrites(b *testing.B, url string, lay pgLayout, writers int) {
	ctx := context.Background()
	schema := pgSchema(b, url)
	stores := make([]*plan.Store, writers)
	pools := make([]*pgxpool.Pool, writers)
	for w := range stores {
		pools[w] = pgPool(b, url, 1)
		be, err := postgres.New(ctx, pools[w], postgres.WithSchema(schema))
		if err != nil {
			b.Fatal(err)
		}
		if stores[w], err = plan.NewStore(&plan.StoreConfig{Backend: be, BaseDir: "/team/plans"}); err != nil {
			b.Fatal(err)
		}
	}
	if lay.noFeed {
		if _, err := pools[0].Exec(ctx, "ALTER TABLE "+schema+".files DISABLE TRIGGER files_announce"); err != nil {
			b.Fatal(err)
		}
	}
	bare := schema + ".bare"
	if _, err := pools[0].Exec(ctx, "CREATE TABLE "+bare+" (id int PRIMARY KEY, n bigint NOT NULL)"); err != nil {
		b.Fatal(err)
	}
	if _, err := pools[0].Exec(ctx, "INSERT INTO "+bare+" SELECT g, 0 FROM generate_series(0, $1) g", writers); err != nil {
		b.Fatal(err)
	}
	for i := range lay.plans {
		if _, err := stores[0].Put(ctx, plan.Update{Name: fmt.Sprintf("p%02d", i), Content: ptrTo("- [ ] step 1")}); err != nil {
			b.Fatal(err)
		}
	}
	write, conflicts := guardedWriter(ctx, writers, lay.plans, func(w, _ int) *plan.Store { return stores[w] })
	update := "UPDATE " + bare + " SET n = n + 1 WHERE id = $1"
	bareUpdate := func(w int) error {
		_, err := pools[w].Exec(ctx, update, w)
		return err
	}
	for w := range writers { // prepare the statement on every connection
		if err := bareUpdate(w); err != nil {
			b.Fatal(err)
		}
	}
	reportVersusBare(b, writers, write, bareUpdate, "updates/s", conflicts)
}

// BenchmarkPostgresWatchLatency: a change written through one pool, seen by a WatchFiles
// feed of a Backend on another pool, for a small plan carried in the notification and for a
// 20 KB plan the feed reads back: p50 and p99 from the start of the write call (so
// including its commit and its wait for the disk) to the event's arrival, and p50 and p99
// from the write call's return (its commit confirmed) to the arrival, 0 when the event
// came first.
func BenchmarkPostgresWatchLatency(b *testing.B) {
	srv := postgresServer(b)
	for _, size := range []int{100, 20_000} {
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			schema := pgSchema(b, srv.URL())
			writer, err := postgres.New(ctx, pgPool(b, srv.URL(), 2), postgres.WithSchema(schema))
			if err != nil {
				b.Fatal(err)
			}
			watcher, err := postgres.New(ctx, pgPool(b, srv.URL(), 2), postgres.WithSchema(schema))
			if err != nil {
				b.Fatal(err)
			}
			feed, err := watcher.WatchFiles(ctx, "/plans")
			if err != nil {
				b.Fatal(err)
			}
			pad := string(make([]byte, size))
			lat := make([]time.Duration, 0, b.N)
			after := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				content := fmt.Sprintf("%08d", i) + pad[8:]
				start := time.Now()
				if err := writer.Write(ctx, &driver.WriteRequest{FilePath: "/plans/a.md", Content: content}); err != nil {
					b.Fatal(err)
				}
				committed := time.Now()
				awaitContent(b, feed, content)
				lat = append(lat, time.Since(start))
				after = append(after, max(time.Since(committed), 0))
			}
			b.StopTimer()
			slices.Sort(lat)
			slices.Sort(after)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(after[len(after)/2].Microseconds()), "p50-after-commit-µs")
			b.ReportMetric(float64(after[len(after)*99/100].Microseconds()), "p99-after-commit-µs")
		})
	}
}

// TestPostgresBenchmarksRun runs each Postgres benchmark body briefly, so a broken
// benchmark fails `go test` rather than the next benchmark run.
func TestPostgresBenchmarksRun(t *testing.T) {
	srv := postgresServer(t)
	res := testing.Benchmark(func(b *testing.B) { pgGuardedWrites(b, srv.URL(), pgLayouts[0], 8) })
	if res.N == 0 {
		t.Fatal("the guarded-write benchmark did not run")
	}
}
