package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/postgres"
	"github.com/einoplan/plan/backends/postgres/pgtest"
)

// The scale session: scaleWorkers real ChatModelAgents, each driven by a reactive scripted
// model, take ready steps of one plan with update_plan_step (no step number) and complete
// them until none is left. The plan has phases of scaleWidth steps, each step waiting for
// two steps of the phase before. Reported per backend and plan size: steps completed per
// second next to the single-writer limit (one goroutine claiming and completing every step
// through the Store, no agent), error results other than step_blocked, steps done twice or
// never, and a worker's tool tokens (arguments and results) per completed step, which must
// not grow with the plan.
//
//	go test -run '^$' -bench ScaleSession -benchtime 1x

const scaleWorkers = 32

// scaleWidth is the steps of one phase: 10 for a 60-step plan, 50 for 1,000 steps.
func scaleWidth(steps int) int { return max(10, steps/20) }

// scaleContent is a plan of steps steps in phases of width, each step after two steps of
// the phase before.
func scaleContent(steps int) string {
	width := scaleWidth(steps)
	var b strings.Builder
	fmt.Fprintf(&b, "# Migrate %d billing tables in phases\n\n", steps)
	for i := 1; i <= steps; i++ {
		fmt.Fprintf(&b, "- [ ] Step %d: migrate table billing_%04d and check its row counts", i, i)
		if p, j := (i-1)/width, (i-1)%width; p > 0 {
			base := (p - 1) * width
			fmt.Fprintf(&b, " (after %d, %d)", base+j+1, base+(j+1)%width+1)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// scaleReport is the outcome of one scale session.
type scaleReport struct {
	Steps, Completed, Twice, Left, Errors, Blocked int
	Wall                                           time.Duration
	// MoveTokens are the tokens of every call that was not answered step_blocked (its
	// arguments and result) and of every reminder; BlockedTokens those of the others.
	MoveTokens, BlockedTokens int
}

// runScaleSession runs one scale session on a fresh plan in store.
func runScaleSession(ctx context.Context, c *counter, store *plan.Store, steps int) (*scaleReport, error) {
	if _, err := store.Put(ctx, plan.Update{Name: graphPlanName, Content: ptrTo(scaleContent(steps))}); err != nil {
		return nil, err
	}
	log := &graphLog{completions: map[int]int{}, claims: map[int]time.Time{}, errors: map[string]int{}}
	models := make([]*reactiveModel, scaleWorkers)
	errs := make([]error, scaleWorkers)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range scaleWorkers {
		name := fmt.Sprintf("worker-%d", i+1)
		models[i] = newReactiveModel(&graphPlanWorker{log: log, poll: 20 * time.Millisecond})
		wg.Add(1)
		go func() {
			defer wg.Done()
			mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: name})
			if err == nil {
				err = runAgent(ctx, name, models[i], mw)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	rep := &scaleReport{Steps: steps, Wall: time.Since(start)}
	for i, m := range models {
		if errs[i] != nil {
			return nil, fmt.Errorf("worker-%d: %w", i+1, errs[i])
		}
		for k, res := range m.results {
			n := c.o(res) + c.o(m.args[k])
			if strings.Contains(res, `"step_blocked"`) {
				rep.BlockedTokens += n
			} else {
				rep.MoveTokens += n
			}
		}
		for _, note := range m.notes {
			rep.MoveTokens += c.o(note)
		}
	}
	for code, n := range log.errors {
		switch code {
		case "step_blocked":
			rep.Blocked += n
		case "illegal_transition": // the answer that no pending step is left
		default:
			rep.Errors += n
		}
	}
	for i := 1; i <= steps; i++ {
		switch n := log.completions[i]; {
		case n == 0:
			rep.Left++
		case n > 1:
			rep.Twice++
		}
		rep.Completed += min(log.completions[i], 1)
	}
	return rep, nil
}

// singleWriterRate is steps claimed and completed per second by one goroutine through the
// Store on a fresh plan of steps steps: the storage's single-writer limit for the session.
func singleWriterRate(ctx context.Context, store *plan.Store, steps int) (float64, error) {
	const name = "single"
	if _, err := store.Put(ctx, plan.Update{Name: name, Content: ptrTo(scaleContent(steps))}); err != nil {
		return 0, err
	}
	start := time.Now()
	for range steps {
		_, st, err := store.MoveStep(ctx, plan.StepMove{Name: name, State: plan.StepInProgress})
		if err != nil {
			return 0, err
		}
		if _, _, err := store.MoveStep(ctx, plan.StepMove{Name: name, Step: st.Number, State: plan.StepCompleted}); err != nil {
			return 0, err
		}
	}
	return float64(steps) / time.Since(start).Seconds(), nil
}

// scaleBackend opens a fresh Store of one backend kind for a scale session.
type scaleBackend struct {
	name string
	open func(tb testing.TB) *plan.Store
}

// scaleBackends are the backends of the scale session. The PostgreSQL server (default
// durability) starts on first use and stops when parent ends.
func scaleBackends(parent testing.TB) []scaleBackend {
	var pgOnce sync.Once
	var pgURL string
	var pgErr error
	store := func(tb testing.TB, b plan.Backend) *plan.Store {
		s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: plansDir})
		if err != nil {
			tb.Fatal(err)
		}
		return s
	}
	return []scaleBackend{
		{"LocalBackend", func(tb testing.TB) *plan.Store {
			b, err := plan.NewLocalBackend(tb.TempDir())
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { b.Close() })
			return store(tb, b)
		}},
		{"RedisBackend", func(tb testing.TB) *plan.Store {
			o, err := benchRedisKind(tb).open()
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(o.close)
			return store(tb, o.backend)
		}},
		{"PostgresBackend", func(tb testing.TB) *plan.Store {
			pgOnce.Do(func() {
				srv, err := pgtest.Start("fsync=on", "max_connections=200")
				if err != nil {
					pgErr = err
					return
				}
				parent.Cleanup(srv.Remove)
				pgURL = srv.URL()
			})
			if pgErr != nil {
				if os.Getenv("CI") == "true" {
					tb.Fatalf("CI=true and no PostgreSQL: %v", pgErr)
				}
				tb.Skipf("no PostgreSQL: %v", pgErr)
			}
			b, err := postgres.New(context.Background(), pgPool(tb, pgURL, scaleWorkers+4), postgres.WithSchema(pgSchema(tb, pgURL)))
			if err != nil {
				tb.Fatal(err)
			}
			return store(tb, b)
		}},
	}
}

func BenchmarkScaleSession(b *testing.B) {
	ctx := context.Background()
	c, err := newCounter()
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range scaleBackends(b) {
		for _, steps := range []int{60, 1000} {
			b.Run(fmt.Sprintf("%s/%dsteps", kind.name, steps), func(b *testing.B) {
				for range b.N {
					rep, err := runScaleSession(ctx, c, kind.open(b), steps)
					if err != nil {
						b.Fatal(err)
					}
					limit, err := singleWriterRate(ctx, kind.open(b), steps)
					if err != nil {
						b.Fatal(err)
					}
					rate := float64(rep.Completed) / rep.Wall.Seconds()
					b.ReportMetric(rate, "steps/s")
					b.ReportMetric(limit, "single-writer-steps/s")
					b.ReportMetric(float64(rep.Errors), "conflicts")
					b.ReportMetric(float64(rep.Twice), "twice")
					b.ReportMetric(float64(rep.Left), "left")
					b.ReportMetric(float64(rep.MoveTokens)/float64(max(rep.Completed, 1)), "tokens/step")
					b.ReportMetric(float64(rep.BlockedTokens)/float64(max(rep.Blocked, 1)), "tokens/blocked")
				}
			})
		}
	}
}

// TestScaleSessionCostsTheSameTokensPerStepAtAnySize: 32 workers complete a 60-step plan
// and a 300-step plan on one Store each; no call fails but for step_blocked, no step is
// done twice or left, and neither a worker's tokens per step (moves and reminders) nor
// those of one step_blocked answer grow with the plan.
func TestScaleSessionCostsTheSameTokensPerStepAtAnySize(t *testing.T) {
	c, err := newCounter()
	if err != nil {
		t.Fatal(err)
	}
	perStep, perBlocked := map[int]float64{}, map[int]float64{}
	for _, steps := range []int{60, 300} {
		store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend(), BaseDir: plansDir})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := runScaleSession(context.Background(), c, store, steps)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Errors != 0 || rep.Twice != 0 || rep.Left != 0 {
			t.Errorf("%d steps: %d failed calls, %d steps done twice, %d left; want none", steps, rep.Errors, rep.Twice, rep.Left)
		}
		perStep[steps] = float64(rep.MoveTokens) / float64(rep.Completed)
		perBlocked[steps] = float64(rep.BlockedTokens) / float64(max(rep.Blocked, 1))
		t.Logf("%d steps: %.1f worker tokens per step, %d step_blocked answers of %.1f tokens, %v",
			steps, perStep[steps], rep.Blocked, perBlocked[steps], rep.Wall)
	}
	// Step numbers gain a digit from 60 to 300 steps, and how many reminders a worker gets
	// depends on the interleaving; nothing may grow with the plan.
	if perStep[300] > 1.25*perStep[60] {
		t.Errorf("worker tokens per step grew from %.1f at 60 steps to %.1f at 300", perStep[60], perStep[300])
	}
	if perBlocked[300] > 1.1*perBlocked[60] {
		t.Errorf("a step_blocked answer grew from %.1f tokens at 60 steps to %.1f at 300", perBlocked[60], perBlocked[300])
	}
}
