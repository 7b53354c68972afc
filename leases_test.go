package plan_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan/internal/document"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

const leaseBody = "# Lease\n- [ ] one\n- [ ] two\n- [ ] three (after 1)\n"

func leaseStores(t *testing.T, backend plan.Backend, ttl time.Duration, onChange func(context.Context, plan.Change)) (*plan.Store, *plan.Store) {
	t.Helper()
	a, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HoldTTL: ttl, OnChange: onChange})
	require.NoError(t, err)
	b, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HoldTTL: ttl, OnChange: onChange})
	require.NoError(t, err)
	body := leaseBody
	_, err = a.Put(context.Background(), plan.Update{Name: "lease", Content: &body})
	require.NoError(t, err)
	return a, b
}

func leaseMove(s *plan.Store, by string, step int, to plan.StepState) (*plan.Plan, plan.Step, plan.Code) {
	p, st, err := s.MoveStep(context.Background(), plan.StepMove{Name: "lease", Step: step, State: to, By: by})
	if err != nil {
		var pe *plan.Error
		if errors.As(err, &pe) {
			return nil, plan.Step{}, pe.Code
		}
		return nil, plan.Step{}, "not_an_error"
	}
	return p, st, ""
}

// A hold not renewed within HoldTTL has expired, judged from the time stored in the plan
// file: a second Store on the same storage (another process) takes the step before any
// pending one, without a takeover, and the change says whose hold expired. Renewing (its
// holder moving it to in_progress again) keeps it.
func TestAnExpiredHoldIsTakenFirstOnEveryBackend(t *testing.T) {
	const ttl = 600 * time.Millisecond // a third of it covers a few moves on a loaded machine
	for _, bc := range []struct {
		name string
		new  func(t *testing.T) plan.Backend
	}{
		{"memory", func(*testing.T) plan.Backend { return plan.NewMemoryBackend() }},
		{"local", func(t *testing.T) plan.Backend {
			b, err := plan.NewLocalBackend(t.TempDir())
			require.NoError(t, err)
			return b
		}},
	} {
		t.Run(bc.name, func(t *testing.T) {
			var mu sync.Mutex
			var changes []plan.Change
			a, b := leaseStores(t, bc.new(t), ttl, func(_ context.Context, c plan.Change) {
				mu.Lock()
				defer mu.Unlock()
				changes = append(changes, c)
			})
			_, st, code := leaseMove(a, "w1", 0, plan.StepInProgress)
			require.Empty(t, code)
			require.Equal(t, 1, st.Number)
			_, _, code = leaseMove(b, "w2", 1, plan.StepCompleted)
			assert.Equal(t, plan.CodeStepHeld, code, "a hold within its TTL")

			time.Sleep(ttl * 2 / 3)
			p, st, code := leaseMove(a, "w1", 1, plan.StepInProgress)
			require.Empty(t, code, "its holder renews it")
			assert.Equal(t, "w1", st.Holder)
			assert.Equal(t, int64(3), p.Revision)
			time.Sleep(ttl * 2 / 3)
			_, _, code = leaseMove(b, "w2", 1, plan.StepCompleted)
			assert.Equal(t, plan.CodeStepHeld, code, "renewed, so still held")

			time.Sleep(ttl + 20*time.Millisecond)
			p, st, code = leaseMove(b, "w2", 0, plan.StepInProgress)
			require.Empty(t, code)
			assert.Equal(t, 1, st.Number, "the expired step before pending step 2")
			assert.Equal(t, "w2", st.Holder)
			assert.Contains(t, document.EncodePlan(p), "hold_expired: \"1 w1\"")
			mu.Lock()
			last := changes[len(changes)-1]
			mu.Unlock()
			assert.Equal(t, "w1", last.Expired)
			assert.Equal(t, "w2", last.Actor)

			p, _, code = leaseMove(a, "w2", 1, plan.StepCompleted)
			require.Empty(t, code)
			assert.NotContains(t, document.EncodePlan(p), "hold_expired", "only the revision that moved it says so")
			revs, err := a.History(context.Background(), "lease")
			require.NoError(t, err)
			assert.Equal(t, int64(5), p.Revision, "revision = 1 + successful changes")
			require.NotEmpty(t, revs)
			assert.Equal(t, "w2", revs[0].Author)
		})
	}
}

// A stale move with a note onto a step another agent took since is refused even once that
// hold expired: the expiry lets anyone take the step, not write over what changed since the
// revision the mover read.
func TestAnExpiredHoldLetsNoStaleNoteThrough(t *testing.T) {
	const ttl = 50 * time.Millisecond
	s, _ := newTeamStore(t, plan.StoreConfig{HoldTTL: ttl})
	ctx := context.Background()
	seen, err := s.Get(ctx, "team")
	require.NoError(t, err)
	_, _, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, By: "w1", Note: "half done, do not redo"})
	require.Nil(t, perr)
	time.Sleep(2 * ttl)

	_, _, perr = move(t, s, plan.StepMove{Step: 1, State: plan.StepCompleted, By: "w2", Note: "done from scratch", IfRevision: rev(seen.Revision)})
	require.NotNil(t, perr, "a note written over a step that changed since the revision read")
	assert.Equal(t, plan.CodeRevisionConflict, perr.Code)
	_, _, perr = move(t, s, plan.StepMove{Step: 1, State: plan.StepCompleted, By: "w2", Note: "done from scratch"})
	assert.Nil(t, perr, "without the stale revision the expired hold is taken")
}

// With HoldTTL 0 a hold never expires.
func TestWithoutATTLAHoldNeverExpires(t *testing.T) {
	a, b := leaseStores(t, plan.NewMemoryBackend(), 0, nil)
	_, _, code := leaseMove(a, "w1", 1, plan.StepInProgress)
	require.Empty(t, code)
	time.Sleep(30 * time.Millisecond)
	_, _, code = leaseMove(b, "w2", 1, plan.StepCompleted)
	assert.Equal(t, plan.CodeStepHeld, code)
	_, st, code := leaseMove(b, "w2", 0, plan.StepInProgress)
	require.Empty(t, code)
	assert.Equal(t, 2, st.Number)
}

// A worker whose run is cancelled mid-step leaves its step held; after the TTL another
// worker's update_plan_step without a step number takes that step and finishes it.
func TestAStepOfACancelledRunIsFinishedByAnotherAfterTheTTL(t *testing.T) {
	const ttl = 200 * time.Millisecond
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend(), HoldTTL: ttl})
	require.NoError(t, err)
	body := leaseBody
	_, err = s.Put(context.Background(), plan.Update{Name: "lease", Content: &body})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w1 := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"lease","status":"in_progress"}`),
		func([]*schema.Message) *schema.Message { // the run is cancelled while it works on the step
			cancel()
			return schema.AssistantMessage("", []schema.ToolCall{{ID: "c2", Type: "function",
				Function: schema.FunctionCall{Name: "update_plan_step", Arguments: `{"name":"lease","step":1,"status":"completed"}`}}})
		},
	)
	leaseRun(ctx, t, "w1", w1, s)
	p, err := s.Get(context.Background(), "lease")
	require.NoError(t, err)
	require.Contains(t, p.Content, "- [~] one (@w1)", "the cancelled run's step stays held")

	early := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"lease","step":1,"status":"completed"}`),
		plantest.Answer("ok"),
	)
	results := leaseRun(context.Background(), t, "w2", early, s)
	require.Len(t, results, 1)
	assert.Equal(t, "step_held", graphErrCode(results[0]), "before the TTL")

	start := time.Now()
	time.Sleep(ttl)
	w2 := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"lease","status":"in_progress"}`),
		plantest.CallTool("update_plan_step", `{"name":"lease","step":1,"status":"completed"}`),
		plantest.Answer("done"),
	)
	results = leaseRun(context.Background(), t, "w2", w2, s)
	require.Len(t, results, 2)
	assert.Equal(t, "", graphErrCode(results[0]), results[0])
	assert.Contains(t, results[0], `"step":1`)
	assert.Equal(t, "", graphErrCode(results[1]), results[1])
	assert.GreaterOrEqual(t, time.Since(start), ttl)
	p, err = s.Get(context.Background(), "lease")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(strings.SplitN(p.Content, "\n", 3)[1], "- [x] one"), p.Content)
}

// leaseRun runs one ChatModelAgent named name with the plan middleware over s and returns
// its tool results; a cancelled run ends early.
func leaseRun(ctx context.Context, t *testing.T, name string, m *plantest.ScriptedModel, s *plan.Store) []string {
	t.Helper()
	mw, err := plan.New(context.Background(), &plan.Config{Store: s, AgentName: name})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: name, Description: "works", Instruction: "You work.", Model: m,
		Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 20,
	})
	require.NoError(t, err)
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
	var out []string
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			require.Error(t, ctx.Err(), "only a cancelled run fails: %v", ev.Err)
			continue
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			if msg := ev.Output.MessageOutput.Message; msg != nil && msg.Role == schema.Tool {
				out = append(out, msg.Content)
			}
		}
	}
	return out
}
