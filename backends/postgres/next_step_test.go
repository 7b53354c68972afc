package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/einoplan/plan"
)

// TestFinishingAStepAndTakingTheNextIsOneStatement: a move with Next (the step finished and
// the next ready one taken) is one statement, the same keeping swap as any change.
func TestFinishingAStepAndTakingTheNextIsOneStatement(t *testing.T) {
	requireServer(t)
	counter := &statementCounter{}
	cfg, err := pgxpool.ParseConfig(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 1
	cfg.ConnConfig.Tracer = counter
	pool, err := pgxpool.NewWithConfig(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	b := mustNew(t, pool, WithSchema(newBackend(t).Schema()))
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: "/plans"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(bg, plan.Update{Name: "ship", Content: ptr("- [ ] build\n- [ ] test\n- [ ] tag\n")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.MoveStep(bg, plan.StepMove{Name: "ship", State: plan.StepInProgress, By: "w"}); err != nil { // prepares the statement
		t.Fatal(err)
	}
	for from := 1; from <= 2; from++ {
		q, p := counter.queries.Load(), counter.prepares.Load()
		_, held, err := s.MoveStep(bg, plan.StepMove{Name: "ship", Step: from, State: plan.StepCompleted, By: "w", Next: true})
		if err != nil {
			t.Fatal(err)
		}
		if held.Number != from+1 || held.Holder != "w" {
			t.Fatalf("took %+v after step %d", held, from)
		}
		counter.mu.Lock()
		last := counter.last
		counter.mu.Unlock()
		if dq, dp := counter.queries.Load()-q, counter.prepares.Load()-p; dq != 1 || dp != 0 || last != b.sql.swapKeeping {
			t.Fatalf("the move took %d statements and %d prepares (last %.60q); want the one keeping swap", dq, dp, last)
		}
	}
}
