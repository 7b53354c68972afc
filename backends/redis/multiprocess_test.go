package redisbackend

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/internal/childtest"

	"github.com/einoplan/plan"
)

const (
	childPrefixEnv = "PLAN_REDIS_CHILD_PREFIX"
	processes      = 4
	goroutinesEach = 8
	incrementsEach = 25
)

// TestGuardedIncrementsAcrossProcesses runs 4 processes × 8 goroutines × 25 guarded
// increments of one plan through plan.NewStore. Every increment reads the plan and writes
// revision+1 guarded by the revision it read; the final revision is exactly 1 + 800 and the
// counter exactly 800, so no update was lost and none was applied twice.
func TestGuardedIncrementsAcrossProcesses(t *testing.T) {
	requireServer(t)
	if childtest.IsChild() {
		t.Skip("running as a child")
	}
	b, _ := newBackend(t)
	ctx := context.Background()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, plan.Update{Name: "counter", Content: ptr("0")}); err != nil {
		t.Fatal(err)
	}

	children := childtest.Run(t, "TestGuardedIncrementsChild",
		map[string]string{"PLAN_REDIS_ADDR": redisAddr, childPrefixEnv: b.prefix}, processes)
	if err := childtest.WaitAll(children); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "counter")
	if err != nil {
		t.Fatal(err)
	}
	want := processes * goroutinesEach * incrementsEach
	if got.Revision != int64(1+want) || got.Content != fmt.Sprint(want) {
		t.Fatalf("after %d increments: revision %d, counter %q; want revision %d, counter %d",
			want, got.Revision, got.Content, 1+want, want)
	}
}

// TestGuardedIncrementsChild is one process of TestGuardedIncrementsAcrossProcesses. Each
// goroutine has a connection and Backend value of its own, so nothing in this process
// orders the goroutines' writes: only Redis's compare-and-swap does.
func TestGuardedIncrementsChild(t *testing.T) {
	childtest.SkipUnlessChild(t)
	prefix := os.Getenv(childPrefixEnv)
	requireServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stores := make([]*plan.Store, goroutinesEach)
	for g := range stores {
		stores[g] = machine(t, prefix, nil)
	}
	for _, err := range backendtest.InParallel(goroutinesEach, func(g int) error {
		return backendtest.GuardedIncrements(ctx, stores[g], "counter", incrementsEach)
	}) {
		t.Fatal(err)
	}
}
