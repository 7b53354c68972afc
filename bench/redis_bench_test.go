package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	redisbackend "github.com/einoplan/plan/backends/redis"
	"github.com/einoplan/plan/driver"
)

// Guarded writes per second on one Redis server and on a 3-master Cluster, by 1, 8 and 32
// concurrent writers, each with a client, Backend and Store of its own as separate
// machines would have. A guarded write reads a plan and writes it back with
// last_known_revision, retrying on revision_conflict; one op is one successful write.
// Layouts: every writer on 1 plan; writers rotating over 16 plans of one folder (one
// Cluster slot); rotating over 16 plans in 16 folders (spread over the Cluster's slots). Next to them, the raw EVALSHA
// round trip of a script that returns at once, at the same concurrency on the same server:
// the most round trips per second the deployment allows; a guarded write needs two.
//
//	go test -run '^$' -bench Redis -benchtime 2s

var redisWriters = []int{1, 8, 32}

type redisLayout struct {
	name    string
	plans   int
	folders bool
}

var redisLayouts = []redisLayout{{"1plan", 1, false}, {"16plans", 16, false}, {"16folders", 16, true}}

func redisClient(deployment string, addr string, cluster []string) redis.UniversalClient {
	if deployment == "cluster" {
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: cluster, ContextTimeoutEnabled: true})
	}
	return redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
}

func BenchmarkRedisGuardedWrites(b *testing.B) {
	srv, cl := redisDeployments(b)
	for _, dep := range []string{"server", "cluster"} {
		for _, lay := range redisLayouts {
			for _, w := range redisWriters {
				b.Run(fmt.Sprintf("%s/%s/writers=%d", dep, lay.name, w), func(b *testing.B) {
					guardedWrites(b, dep, srv.Addr(), cl.Addrs(), lay, w)
				})
			}
		}
	}
}

// guardedWrites runs b.N successful guarded writes spread over writers; writer w's k-th
// write goes to plan (w+k) mod plans. In 5 rounds, each batch of writes is followed by as
// many raw EVALSHA calls at the same concurrency on the same deployment, so both rates
// share whatever else the machine is doing; the ratio of the two is reported.
func guardedWrites(b *testing.B, dep, addr string, cluster []string, lay redisLayout, writers int) {
	ctx := context.Background()
	prefix := "bench:" + rand.Text()[:8] + ":"
	folders := 1
	if lay.folders {
		folders = lay.plans
	}
	// stores[w][f] is writer w's Store on folder f; a plan i lives in folder i mod folders.
	stores := make([][]*plan.Store, writers)
	clients := make([]redis.UniversalClient, writers)
	for w := range stores {
		clients[w] = redisClient(dep, addr, cluster)
		defer clients[w].Close()
		be, err := redisbackend.New(ctx, clients[w], redisbackend.WithPrefix(prefix))
		if err != nil {
			b.Fatal(err)
		}
		for f := range folders {
			s, err := plan.NewStore(&plan.StoreConfig{Backend: be, BaseDir: fmt.Sprintf("/team%02d/plans", f)})
			if err != nil {
				b.Fatal(err)
			}
			stores[w] = append(stores[w], s)
		}
		if err := noopScript.Run(ctx, clients[w], []string{prefix + "{noop}"}).Err(); err != nil {
			b.Fatal(err)
		}
	}
	for i := range lay.plans {
		if _, err := stores[0][i%folders].Put(ctx, plan.Update{Name: fmt.Sprintf("p%02d", i), Content: ptrTo("- [ ] step 1")}); err != nil {
			b.Fatal(err)
		}
	}
	write, conflicts := guardedWriter(ctx, writers, lay.plans, func(w, i int) *plan.Store { return stores[w][i%folders] })
	evalsha := func(w int) error {
		return noopScript.EvalSha(ctx, clients[w], []string{prefix + "{noop}"}).Err()
	}
	reportVersusBare(b, writers, write, evalsha, "evalsha/s", conflicts)
}

// noopScript returns at once: its EVALSHA is one bare round trip to the script engine.
var noopScript = redis.NewScript(`return 1`)

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// spread runs op n times over writers goroutines (goroutine w passes w) and returns the
// wall time it took.
func spread(b *testing.B, writers, n int, op func(w int) error) time.Duration {
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	start := time.Now()
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := op(w); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

func ptrTo[T any](v T) *T { return &v }

// awaitContent reads feed up to the event that carries content; a Resync fails the
// benchmark.
func awaitContent(b *testing.B, feed <-chan driver.FileEvent, content string) {
	for ev := range feed {
		if ev.Resync {
			b.Fatal("resync during the benchmark")
		}
		if ev.Content == content {
			return
		}
	}
}

// BenchmarkRedisWatchLatency: a change written through client A, seen by a WatchFiles feed
// on client B: p50 and p99 from the write call's start to the event's arrival, on one
// server and on the Cluster.
func BenchmarkRedisWatchLatency(b *testing.B) {
	srv, cl := redisDeployments(b)
	for _, dep := range []string{"server", "cluster"} {
		b.Run(dep, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			prefix := "bench:" + rand.Text()[:8] + ":"
			ca, cb := redisClient(dep, srv.Addr(), cl.Addrs()), redisClient(dep, srv.Addr(), cl.Addrs())
			defer ca.Close()
			defer cb.Close()
			writer, err := redisbackend.New(ctx, ca, redisbackend.WithPrefix(prefix))
			if err != nil {
				b.Fatal(err)
			}
			watcher, err := redisbackend.New(ctx, cb, redisbackend.WithPrefix(prefix))
			if err != nil {
				b.Fatal(err)
			}
			feed, err := watcher.WatchFiles(ctx, "/plans")
			if err != nil {
				b.Fatal(err)
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				content := fmt.Sprint(i)
				start := time.Now()
				if err := writer.Write(ctx, &driver.WriteRequest{FilePath: "/plans/a.md", Content: content}); err != nil {
					b.Fatal(err)
				}
				awaitContent(b, feed, content)
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// TestRedisBenchmarksRun runs each Redis benchmark body briefly, so a broken benchmark
// fails `go test` rather than the next benchmark run.
func TestRedisBenchmarksRun(t *testing.T) {
	srv, cl := redisDeployments(t)
	res := testing.Benchmark(func(b *testing.B) {
		guardedWrites(b, "server", srv.Addr(), cl.Addrs(), redisLayouts[0], 8)
	})
	if res.N == 0 {
		t.Fatal("the guarded-write benchmark did not run")
	}
}
