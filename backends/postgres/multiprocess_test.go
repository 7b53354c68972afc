package postgres

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/internal/childtest"
)

const (
	childSchemaEnv = "PLAN_POSTGRES_CHILD_SCHEMA"
	childPlansEnv  = "PLAN_POSTGRES_CHILD_PLANS"
	processes      = 4
	goroutinesEach = 16
)

// TestNoLostUpdateAcrossProcessesOnOnePlan runs 4 processes × 16 goroutines, each making 8
// guarded increments of one plan through plan.NewStore, every goroutine on a connection and
// Backend of its own: the final revision is exactly 1 + 512 and the counter exactly 512, so
// no update was lost and none was applied twice.
func TestNoLostUpdateAcrossProcessesOnOnePlan(t *testing.T) {
	runIncrementChildren(t, 1, 8)
}

// TestNoLostUpdateAcrossProcessesOnDistinctPlans runs the same 4 × 16 goroutines on 16
// plans, goroutine g of every process on plan g, 25 increments each: every plan ends at
// exactly 1 + 100.
func TestNoLostUpdateAcrossProcessesOnDistinctPlans(t *testing.T) {
	runIncrementChildren(t, goroutinesEach, 25)
}

func runIncrementChildren(t *testing.T, plans, each int) {
	requireServer(t)
	if childtest.IsChild() {
		t.Skip("running as a child")
	}
	b := newBackend(t)
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	for i := range plans {
		if _, err := s.Put(bg, plan.Update{Name: counterName(i), Content: ptr("0")}); err != nil {
			t.Fatal(err)
		}
	}
	children := childtest.Run(t, "TestIncrementChild", map[string]string{
		"PLAN_POSTGRES_URL": serverURL, childSchemaEnv: b.Schema(), childPlansEnv: fmt.Sprintf("%d:%d", plans, each),
	}, processes)
	if err := childtest.WaitAll(children); err != nil {
		t.Fatal(err)
	}
	perPlan := processes * goroutinesEach / plans * each
	for i := range plans {
		got, err := s.Get(bg, counterName(i))
		if err != nil {
			t.Fatal(err)
		}
		if got.Revision != int64(1+perPlan) || got.Content != fmt.Sprint(perPlan) {
			t.Fatalf("%s after %d increments: revision %d, counter %q", counterName(i), perPlan, got.Revision, got.Content)
		}
	}
}

func counterName(i int) string { return fmt.Sprintf("counter-%d", i) }

// TestIncrementChild is one process of the tests above. Each goroutine has a pool of one
// connection and a Backend and Store of its own, so nothing in this process orders the
// goroutines' writes: only PostgreSQL's conditional UPDATE does.
func TestIncrementChild(t *testing.T) {
	childtest.SkipUnlessChild(t)
	schema := os.Getenv(childSchemaEnv)
	requireServer(t)
	var plans, each int
	if _, err := fmt.Sscanf(os.Getenv(childPlansEnv), "%d:%d", &plans, &each); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(bg, 2*time.Minute)
	defer cancel()
	stores := make([]*plan.Store, goroutinesEach)
	for g := range stores {
		s, err := plan.NewStore(&plan.StoreConfig{Backend: mustNew(t, newPool(t, serverURL, 1), WithSchema(schema))})
		if err != nil {
			t.Fatal(err)
		}
		stores[g] = s
	}
	for _, err := range backendtest.InParallel(goroutinesEach, func(g int) error {
		return backendtest.GuardedIncrements(ctx, stores[g], counterName(g%plans), each)
	}) {
		t.Fatal(err)
	}
}
