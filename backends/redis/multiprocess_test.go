package redisbackend

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan/driver/drivertest"

	"github.com/einoplan/plan"
)

const (
	childPrefixEnv  = "PLAN_REDIS_CHILD_PREFIX"
	processes       = 4
	goroutinesEach  = 8
	incrementsEach  = 25
	childTestFilter = "^TestGuardedIncrementsChild$"
)

// TestGuardedIncrementsAcrossProcesses runs 4 processes × 8 goroutines × 25 guarded
// increments of one plan through plan.NewStore. Every increment reads the plan and writes
// revision+1 guarded by the revision it read; the final revision is exactly 1 + 800 and the
// counter exactly 800, so no update was lost and none was applied twice.
func TestGuardedIncrementsAcrossProcesses(t *testing.T) {
	requireServer(t)
	if os.Getenv(childPrefixEnv) != "" {
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

	var wg sync.WaitGroup
	outputs := make([][]byte, processes)
	errs := make([]error, processes)
	for i := range processes {
		cmd := exec.Command(os.Args[0], "-test.run="+childTestFilter, "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "PLAN_REDIS_ADDR="+redisAddr, childPrefixEnv+"="+b.prefix)
		wg.Add(1)
		go func() {
			defer wg.Done()
			outputs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range processes {
		if errs[i] != nil {
			t.Fatalf("child %d: %v\n%s", i, errs[i], outputs[i])
		}
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
	prefix := os.Getenv(childPrefixEnv)
	if prefix == "" {
		t.Skip("only runs as a child of TestGuardedIncrementsAcrossProcesses")
	}
	requireServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, goroutinesEach)
	for range goroutinesEach {
		s := machine(t, prefix, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := drivertest.GuardedIncrements(ctx, s, "counter", incrementsEach); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
