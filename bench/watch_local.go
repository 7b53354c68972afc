package main

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/einoplan/plan"
)

// The measurements behind the Watch benchmarks in watch_local_test.go: how long a change
// written by one process takes to reach a watcher in another, and what an idle watcher
// costs.

// latencies are the delays between the start of each write and its Change at the watcher.
type latencies []time.Duration

// percentile returns the q-th percentile (0 < q <= 1) by the nearest-rank method.
func (l latencies) percentile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(float64(len(s))*q+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// collectLatencies reads Changes of plan name, whose titles hold the UnixNano time their
// write started, until the Change of revision last arrived or ctx ends. Writes that one
// poll saw together arrive as one Change after a resync: the latest is measured, and the
// resyncs are counted.
func collectLatencies(ctx context.Context, ch <-chan plan.Change, name string, last int64) (latencies, int, error) {
	var out latencies
	resyncs := 0
	for {
		select {
		case <-ctx.Done():
			return out, resyncs, fmt.Errorf("%d changes seen, not revision %d: %w", len(out), last, ctx.Err())
		case c, ok := <-ch:
			if !ok {
				return out, resyncs, fmt.Errorf("watch ended after %d changes", len(out))
			}
			now := time.Now()
			if c.Action == plan.ActionResync {
				resyncs++
				continue
			}
			if c.Name != name || c.Action == plan.ActionDelete {
				continue
			}
			var started int64
			if _, err := fmt.Sscan(c.Title, &started); err != nil {
				return out, resyncs, fmt.Errorf("title %q is not a time", c.Title)
			}
			out = append(out, now.Sub(time.Unix(0, started)))
			if c.Revision >= last {
				return out, resyncs, nil
			}
		}
	}
}

// cpuTime is the user and system CPU time this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// listCounter counts LsInfo calls. withUnwrap says what it wraps, so the Store still finds
// the wrapped Backend's capabilities (LocalBackend's folder stamp); without, it hides them.
type listCounter struct {
	plan.Backend
	lists atomic.Int64
}

func (c *listCounter) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	c.lists.Add(1)
	return c.Backend.LsInfo(ctx, req)
}

type listCounterUnwrap struct{ *listCounter }

func (c listCounterUnwrap) Unwrap() plan.Backend { return c.Backend }

// idleCost is what a watcher that sees no change costs per second of wall time.
type idleCost struct {
	cpuPerSecond   time.Duration
	listsPerSecond float64
}

// measureIdle watches store for window without any change and returns the CPU time the
// process used and the LsInfo calls counted by lists; watch false measures the process
// without a watcher.
func measureIdle(ctx context.Context, store *plan.Store, lists *atomic.Int64, window time.Duration, watch bool) (idleCost, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if watch {
		ch, err := store.Watch(wctx)
		if err != nil {
			return idleCost{}, err
		}
		go func() {
			for range ch {
			}
		}()
	}
	startLists, startCPU, start := lists.Load(), cpuTime(), time.Now()
	time.Sleep(window)
	elapsed := time.Since(start).Seconds()
	return idleCost{
		cpuPerSecond:   time.Duration(float64(cpuTime()-startCPU) / elapsed),
		listsPerSecond: float64(lists.Load()-startLists) / elapsed,
	}, nil
}
