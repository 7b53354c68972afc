package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/internal/childtest"
)

// writeTimePrefix starts each line on which the writer reports how long a write took.
const writeTimePrefix = "write-ns "

// The writer process's environment: the plans root and how many writes to make.
const (
	watchWriterEnv = "PLAN_BENCH_WATCH_WRITER"
	watchWritesEnv = "PLAN_BENCH_WATCH_WRITES"
)

// TestWatchWriterProcess is the writer side of BenchmarkWatchLatencyLocal: it writes plan
// "lat" $PLAN_BENCH_WATCH_WRITES times in the plans root $PLAN_BENCH_WATCH_WRITER, 150 to 350 ms apart (more than the watcher's poll
// interval, so no two writes are coalesced), each with the time its write starts as title.
func TestWatchWriterProcess(t *testing.T) {
	childtest.SkipUnlessChild(t)
	root := os.Getenv(watchWriterEnv)
	n, err := strconv.Atoi(os.Getenv(watchWritesEnv))
	if err != nil {
		t.Fatal(err)
	}
	b, err := plan.NewLocalBackend(root)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	body := "# Latency\n- [ ] one\n"
	for range n {
		time.Sleep(150*time.Millisecond + rand.N(200*time.Millisecond))
		start := time.Now()
		if _, err := s.Put(context.Background(), plan.Update{Name: "lat", Content: &body,
			Title: strconv.FormatInt(start.UnixNano(), 10)}); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%s%d\n", writeTimePrefix, time.Since(start))
	}
}

// BenchmarkWatchLatencyLocal measures how long a write by another process takes to reach
// Store.Watch on LocalBackend with the default poll interval: p50 and p99 from the start
// of the write, and how long the writes themselves took (durable: fsync and rename), which
// that includes. b.N writes; run with -benchtime 120x or more for a meaningful p99.
func BenchmarkWatchLatencyLocal(b *testing.B) {
	root := b.TempDir()
	backend, err := plan.NewLocalBackend(root)
	if err != nil {
		b.Fatal(err)
	}
	defer backend.Close()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(b.N)*time.Second+30*time.Second)
	defer cancel()
	ch, err := store.Watch(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	writer := childtest.Start(b, "TestWatchWriterProcess",
		map[string]string{watchWriterEnv: root, watchWritesEnv: strconv.Itoa(b.N)})
	reported := make(chan []string, 1)
	go func() { // the writer's report, read as it comes so that the writer never blocks on it
		var lines []string
		for {
			line, err := writer.Stdout.ReadString('\n')
			if err != nil {
				break
			}
			lines = append(lines, line)
		}
		reported <- lines
	}()
	lat, resyncs, err := collectLatencies(ctx, ch, "lat", int64(b.N))
	lines := <-reported
	if werr := writer.Wait(); werr != nil && err == nil {
		err = fmt.Errorf("writer: %w", werr)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	var writes latencies
	for _, line := range lines {
		if ns, ok := strings.CutPrefix(strings.TrimSpace(line), writeTimePrefix); ok {
			d, err := strconv.ParseInt(ns, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			writes = append(writes, time.Duration(d))
		}
	}
	b.ReportMetric(float64(writes.percentile(0.5).Microseconds())/1000, "write-p50-ms")
	b.ReportMetric(float64(writes.percentile(0.99).Microseconds())/1000, "write-p99-ms")
	b.ReportMetric(float64(lat.percentile(0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat.percentile(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat.percentile(1).Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(len(lat)), "changes")
	b.ReportMetric(float64(resyncs), "resyncs")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkWatchIdle1000 measures an idle watcher over 1,000 unchanged plans, side by side:
// no watcher at all (the process's own idle cost), LocalBackend as the Store finds it
// (folder stamp), LocalBackend behind a wrapper that hides the stamp (one LsInfo a poll),
// MemoryBackend, and MemoryBackend without plans (what waking up every Interval costs).
// Each runs a 10-second window; run with -benchtime 1x.
func BenchmarkWatchIdle1000(b *testing.B) {
	const plans = 1000
	const window = 10 * time.Second
	ctx := context.Background()
	root := b.TempDir()
	local, err := plan.NewLocalBackend(root)
	if err != nil {
		b.Fatal(err)
	}
	defer local.Close()
	memory := plan.NewMemoryBackend()
	body := "# Plan\n- [x] one\n- [ ] two\n"
	for _, backend := range []plan.Backend{local, memory} {
		s, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
		if err != nil {
			b.Fatal(err)
		}
		for i := range plans {
			if _, err := s.Put(ctx, plan.Update{Name: fmt.Sprintf("p%04d", i), Content: &body}); err != nil {
				b.Fatal(err)
			}
		}
	}
	time.Sleep(2100 * time.Millisecond) // past the racy window: summaries and the folder stamp settle
	cases := []struct {
		name  string
		watch bool
		wrap  func(*listCounter) plan.Backend
		base  plan.Backend
	}{
		{"none", false, func(c *listCounter) plan.Backend { return listCounterUnwrap{c} }, local},
		{"local", true, func(c *listCounter) plan.Backend { return listCounterUnwrap{c} }, local},
		{"local-no-stamp", true, func(c *listCounter) plan.Backend { return c }, local},
		{"memory", true, func(c *listCounter) plan.Backend { return c }, memory},
		{"memory-0-plans", true, func(c *listCounter) plan.Backend { return c }, plan.NewMemoryBackend()},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			counter := &listCounter{Backend: c.base}
			store, err := plan.NewStore(&plan.StoreConfig{Backend: c.wrap(counter)})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := store.ListPage(ctx, plan.ListOptions{}); err != nil { // fills the list cache
				b.Fatal(err)
			}
			var total idleCost
			for range b.N {
				cost, err := measureIdle(ctx, store, &counter.lists, window, c.watch)
				if err != nil {
					b.Fatal(err)
				}
				total.cpuPerSecond += cost.cpuPerSecond
				total.listsPerSecond += cost.listsPerSecond
			}
			b.ReportMetric(float64(total.cpuPerSecond.Microseconds())/float64(b.N)/1000, "cpu-ms/s")
			b.ReportMetric(total.listsPerSecond/float64(b.N), "lists/s")
			b.ReportMetric(0, "ns/op")
		})
	}
}
