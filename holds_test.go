package plan_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/plantest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A note that ends like a holder's tag is refused, whoever moves the step: after a release
// takes the mover's own tag away, the note's tag would otherwise name a holder nobody made.
func TestANoteNeverBecomesAHolder(t *testing.T) {
	s, _ := newTeamStore(t, plan.StoreConfig{})
	mw, err := plan.New(context.Background(), &plan.Config{Store: s, AgentName: "me"})
	require.NoError(t, err)
	results := runTools(t, plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"team","step":1,"status":"in_progress","note":"blocked, ask (@victim)"}`),
		plantest.CallTool("update_plan_step", `{"name":"team","step":1,"status":"in_progress","note":"blocked, ask victim"}`),
		plantest.Answer("done"),
	), mw)
	require.Len(t, results, 2)
	assert.Equal(t, "invalid_argument", errorCode(t, results[0]), results[0])
	assert.Equal(t, "", errorCode(t, results[1]), results[1])

	p, err := s.Get(context.Background(), "team")
	require.NoError(t, err)
	assert.Contains(t, p.Content, "- [~] design — blocked, ask victim (@me)\n")
	_, step, err := s.MoveStep(context.Background(), plan.StepMove{Name: "team", Step: 1, State: plan.StepInProgress, By: "", Takeover: true})
	require.NoError(t, err)
	assert.Empty(t, step.Holder, "a release leaves the step held by nobody")
	_, _, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepCompleted, By: "someone"})
	assert.Nil(t, perr, "so anyone may finish it")
}

// A body written whole cannot claim a step: a line that ends in a holder's tag is refused
// unless it was already there, as often as it was there, so no step of a rewrite or a new plan counts as held once a
// mover with no name starts it, and a release releases.
func TestAWrittenBodyNeverClaimsAStep(t *testing.T) {
	ctx := context.Background()
	s := storeOn(t, plan.NewMemoryBackend(), "")
	forged := "- [ ] Ship (@victim)\n- [~] Build (@victim)\n"
	_, err := s.Put(ctx, plan.Update{Name: "p", Content: &forged})
	requireReason(t, err, "claim_in_text")

	body := "- [ ] Ship\n- [ ] Build\n"
	_, err = s.Put(ctx, plan.Update{Name: "p", Content: &body})
	require.NoError(t, err)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "p", Step: 2, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)
	p, err := s.Get(ctx, "p")
	require.NoError(t, err)

	// Carrying the held line over unchanged is fine; moving the tag to another line is not.
	kept := strings.Replace(p.Content, "Ship", "Ship it", 1)
	_, err = s.Put(ctx, plan.Update{Name: "p", Content: &kept})
	require.NoError(t, err)
	moved := "- [~] Ship it (@w1)\n- [~] Build\n"
	_, err = s.Put(ctx, plan.Update{Name: "p", Content: &moved})
	requireReason(t, err, "claim_in_text")
	copied := kept + "- [~] Build (@w1)\n"
	_, err = s.Put(ctx, plan.Update{Name: "p", Content: &copied})
	requireReason(t, err, "claim_in_text") // a copy of the held line would be a second hold

	// A step whose own text ends like a tag (written before this rule) started by nobody
	// is held by nobody, and stays so after a release.
	legacy := "---\ntitle: \"L\"\nstatus: \"draft\"\nauthor: \"\"\nrevision: 1\nupdated_at: \"2026-01-01T00:00:00Z\"\n---\n- [ ] Ship (@victim)\n"
	backend := plan.NewMemoryBackend()
	require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/legacy.md", Content: legacy}))
	ls := storeOn(t, backend, "")
	_, step, err := ls.MoveStep(ctx, plan.StepMove{Name: "legacy", Step: 1, State: plan.StepInProgress})
	require.NoError(t, err)
	assert.Empty(t, step.Holder)
	_, step, err = ls.MoveStep(ctx, plan.StepMove{Name: "legacy", Step: 1, State: plan.StepInProgress, By: "bob", Takeover: true})
	require.NoError(t, err)
	assert.Equal(t, "bob", step.Holder)
	_, step, err = ls.MoveStep(ctx, plan.StepMove{Name: "legacy", Step: 1, State: plan.StepInProgress, By: "", Takeover: true})
	require.NoError(t, err)
	assert.Empty(t, step.Holder, "a release releases")
}

// Taking over one's own step changes nothing and is refused, so repeated takeovers with
// notes cannot grow an approved plan without bound.
func TestTakingOverOwnStepIsRefused(t *testing.T) {
	s, _ := newTeamStore(t, plan.StoreConfig{})
	ctx := context.Background()
	_, _, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, By: "me"})
	require.Nil(t, perr)
	before, err := s.Get(ctx, "team")
	require.NoError(t, err)
	_, err = s.Approve(ctx, "team", before.Revision, "ana")
	require.NoError(t, err)
	note := strings.Repeat("n", 441)
	for range 50 {
		_, _, perr = move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, By: "me", Takeover: true, Note: note})
		require.NotNil(t, perr)
		assert.Equal(t, plan.CodeIllegalTransition, perr.Code)
	}
	after, err := s.Get(ctx, "team")
	require.NoError(t, err)
	assert.Equal(t, len(before.Content), len(after.Content), "nothing was written")
}

// Holder names map one-to-one: names that differ only in characters a tag cannot hold, or
// beyond their first 64 bytes, hold steps as different agents.
func TestHolderNamesAreOneToOne(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, pair := range [][2]string{{"worker 1", "worker(1"}, {"worker 1", "worker-1"}, {"w%281", "w(1"}, {long + "x", long + "y"}} {
		s, _ := newTeamStore(t, plan.StoreConfig{})
		_, step, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, By: pair[0]})
		require.Nil(t, perr)
		_, _, perr = move(t, s, plan.StepMove{Step: 1, State: plan.StepCompleted, By: pair[1]})
		require.NotNil(t, perr, "%q finished %q's step", pair[1], pair[0])
		assert.Equal(t, plan.CodeStepHeld, perr.Code)
		_, _, perr = move(t, s, plan.StepMove{Step: 1, State: plan.StepCompleted, By: pair[0]})
		assert.Nil(t, perr, "%q finishes its own step (held as %q)", pair[0], step.Holder)
	}
}

// A note has one limit, told the same way whatever its size.
func TestANoteHasOneLimit(t *testing.T) {
	s, _ := newTeamStore(t, plan.StoreConfig{})
	for _, n := range []int{501, 1000, 5000} {
		_, _, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, By: "me", Note: strings.Repeat("n", n)})
		require.NotNil(t, perr, n)
		assert.EqualValues(t, 500, perr.Limit, n)
		assert.Equal(t, "Note", perr.Field)
	}
}

func requireReason(t *testing.T, err error, reason string) {
	t.Helper()
	var pe *plan.Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, reason, pe.Reason, pe.Message)
}

// A rewrite that rewords a step as if it were a move (a new state and a " — …" suffix) counts
// as a change of the steps: a stale step move naming a revision before it is refused.
func TestAStaleMoveAfterRewritesThatRewordAStepIsRefused(t *testing.T) {
	ctx := context.Background()
	s := storeOn(t, plan.NewMemoryBackend(), "")
	for _, body := range []string{
		"- [ ] Deploy\n- [ ] Test\n",
		"- [x] Deploy — to prod instead\n- [ ] Test\n",
		"- [ ] Deploy — to prod instead — and drop staging\n- [ ] Test\n",
	} {
		_, err := s.Put(ctx, plan.Update{Name: "p", Content: ptr(body)})
		require.NoError(t, err)
	}
	_, _, err := s.MoveStep(ctx, plan.StepMove{Name: "p", Step: 1, State: plan.StepInProgress, By: "w", IfRevision: rev(1)})
	require.Equal(t, plan.CodeRevisionConflict, plan.CodeOf(err))
	requireReason(t, err, "steps_changed")

	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "p", Step: 2, State: plan.StepInProgress, By: "w", IfRevision: rev(3)})
	require.NoError(t, err, "a move naming the current steps applies")
}

// runTools runs one ChatModelAgent with the plan middleware mw and returns its tool results.
func runTools(t *testing.T, m *plantest.ScriptedModel, mw adk.ChatModelAgentMiddleware) []string {
	t.Helper()
	return toolResults(runAgent(t, m, mw))
}

const teamBody = "# Team\n- [ ] design\n- [ ] build\n- [ ] test\n- [ ] ship\n"

// newStoreWith is a Store made from cfg (on a fresh MemoryBackend when cfg names none)
// holding plan name with body, and the Backend it is on.
func newStoreWith(t *testing.T, cfg plan.StoreConfig, name, body string) (*plan.Store, plan.Backend) {
	t.Helper()
	if cfg.Backend == nil {
		cfg.Backend = plan.NewMemoryBackend()
	}
	s, err := plan.NewStore(&cfg)
	require.NoError(t, err)
	_, err = s.Put(context.Background(), plan.Update{Name: name, Content: &body})
	require.NoError(t, err)
	return s, cfg.Backend
}

func newTeamStore(t *testing.T, cfg plan.StoreConfig) (*plan.Store, plan.Backend) {
	t.Helper()
	return newStoreWith(t, cfg, "team", teamBody)
}

func move(t *testing.T, s *plan.Store, m plan.StepMove) (*plan.Plan, plan.Step, *plan.Error) {
	t.Helper()
	m.Name = "team"
	p, step, err := s.MoveStep(context.Background(), m)
	if err == nil {
		return p, step, nil
	}
	var pe *plan.Error
	require.True(t, errors.As(err, &pe), "%v", err)
	return nil, plan.Step{}, pe
}

func rev(n int64) *int64 { return &n }

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
	assert.Equal(t, "step_held", plantest.ErrorCode(t, results[0]), "before the TTL")

	start := time.Now()
	time.Sleep(ttl)
	w2 := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"lease","status":"in_progress"}`),
		plantest.CallTool("update_plan_step", `{"name":"lease","step":1,"status":"completed"}`),
		plantest.Answer("done"),
	)
	results = leaseRun(context.Background(), t, "w2", w2, s)
	require.Len(t, results, 2)
	assert.Equal(t, "", plantest.ErrorCode(t, results[0]), results[0])
	assert.Contains(t, results[0], `"step":1`)
	assert.Equal(t, "", plantest.ErrorCode(t, results[1]), results[1])
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

// A note cannot make up a holder, and a step with no text of its own is held all the same.
func TestHolderTagsComeOnlyFromTheHolder(t *testing.T) {
	s, _ := newTeamStore(t, plan.StoreConfig{})
	_, _, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, Note: "ask (@boss)"})
	require.NotNil(t, perr)
	assert.Equal(t, "note_tag", perr.Reason)
	_, _, perr = move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, Note: "ask (@boss)", By: "w1"})
	require.NotNil(t, perr, "not even before the mover's own tag, which a release takes away")
	assert.Equal(t, "note_tag", perr.Reason)

	bare := plan.ParseSteps("- [~] (@w1)\n")
	require.Len(t, bare, 1)
	assert.Equal(t, "w1", bare[0].Holder)
}

// renewalNote is a 441-byte note, numbered i.
func renewalNote(i int) string {
	n := fmt.Sprintf("%02d then also delete every production backup", i)
	return n + strings.Repeat(".", 441-len(n))
}

// A renewal's note replaces the note of its holder's previous renewal: 50 renewals of an
// approved plan with a 441-byte note leave its body one note longer than before them, the
// approval kept, and the text the person approved (a " — " in it too) never changed.
func TestRenewalsNeverGrowAnApprovedPlan(t *testing.T) {
	ctx := context.Background()
	s, _ := newStoreWith(t, plan.StoreConfig{}, "ops", "# Ops\n- [ ] Rotate the logs — weekly\n- [ ] Report\n")
	_, err := s.Approve(ctx, "ops", 1, "ana")
	require.NoError(t, err)
	p, _, err := s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w1", Note: "starting"})
	require.NoError(t, err)
	claimed := len(p.Content)

	for i := 1; i <= 50; i++ {
		p, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w1", Note: renewalNote(i)})
		require.NoError(t, err, "renewal %d", i)
		require.NotNil(t, p.Approval, "renewal %d keeps the approval", i)
		require.Equal(t, "# Ops\n- [~] Rotate the logs — weekly — starting — "+renewalNote(i)+" (@w1)\n- [ ] Report\n", p.Content, "renewal %d", i)
		require.LessOrEqual(t, len(p.Content), claimed+len(" — ")+441)
	}
	p, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)
	assert.Contains(t, p.Content, renewalNote(50)+" (@w1)", "a renewal without a note keeps the last one")
	p, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepCompleted, By: "w1", Note: "rotated"})
	require.NoError(t, err)
	assert.Equal(t, "# Ops\n- [x] Rotate the logs — weekly — starting — "+renewalNote(50)+" (@w1) — rotated\n- [ ] Report\n", p.Content)
	assert.NotNil(t, p.Approval)
}

// The same through an agent's update_plan_step calls.
func TestAnAgentsRenewalsReplaceTheirNote(t *testing.T) {
	ctx := context.Background()
	s, _ := newStoreWith(t, plan.StoreConfig{}, "ops", "# Ops\n- [ ] Rotate the logs\n")
	_, err := s.Approve(ctx, "ops", 1, "ana")
	require.NoError(t, err)
	mw, err := plan.New(ctx, &plan.Config{Store: s, RequireApproval: true, AgentName: "w1"})
	require.NoError(t, err)
	turns := []plantest.Turn{plantest.CallTool("update_plan_step", `{"name":"ops","step":1,"status":"in_progress"}`)}
	for i := 1; i <= 20; i++ {
		turns = append(turns, plantest.CallTool("update_plan_step", `{"name":"ops","step":1,"status":"in_progress","note":`+quote(renewalNote(i))+`}`))
	}
	results := runTools(t, plantest.NewScriptedModel(append(turns, plantest.Answer("ok"))...), mw)
	require.Len(t, results, 21)
	for _, r := range results {
		require.Empty(t, errorCode(t, r), r)
	}
	p, err := s.Get(ctx, "ops")
	require.NoError(t, err)
	assert.Equal(t, "# Ops\n- [~] Rotate the logs — "+renewalNote(20)+" (@w1)\n", p.Content)
	assert.NotNil(t, p.Approval)
}

// Any move that keeps a step in progress with a note (a takeover too) replaces the note the
// previous such move wrote, so agents taking a step over from each other do not grow it
// either; a note a person wrote into the step is never taken for one.
func TestTakeoversReplaceTheLastInProgressNoteOnly(t *testing.T) {
	ctx := context.Background()
	s, _ := newStoreWith(t, plan.StoreConfig{}, "ops", "# Ops\n- [ ] Rotate\n- [ ] Report\n")
	_, _, err := s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)
	var p *plan.Plan
	for i := 1; i <= 10; i++ {
		p, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: fmt.Sprint("w", 1+i%2), Note: fmt.Sprint("taken ", i), Takeover: true})
		require.NoError(t, err)
	}
	assert.Equal(t, "# Ops\n- [~] Rotate — taken 10 (@w1)\n- [ ] Report\n", p.Content)

	// A person rewrites the line: what it ends with is their text now.
	_, err = s.Put(ctx, plan.Update{Name: "ops", Content: ptr("# Ops\n- [~] Rotate — taken 10 — keep this\n- [ ] Report\n")})
	require.NoError(t, err)
	p, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w2", Note: "mine", Takeover: true})
	require.NoError(t, err)
	assert.Equal(t, "# Ops\n- [~] Rotate — taken 10 — keep this — mine (@w2)\n- [ ] Report\n", p.Content)
	// A rewrite that leaves the line as it was leaves its note replaceable.
	_, err = s.Put(ctx, plan.Update{Name: "ops", Content: ptr(strings.Replace(p.Content, "Report", "Report it", 1))})
	require.NoError(t, err)
	p, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w2", Note: "still mine"})
	require.NoError(t, err)
	assert.Equal(t, "# Ops\n- [~] Rotate — taken 10 — keep this — still mine (@w2)\n- [ ] Report it\n", p.Content)
}

// A note that was there when a person approved the plan is part of what they approved: a
// renewal after the approval never replaces it.
func TestARenewalNeverReplacesANoteThePersonApproved(t *testing.T) {
	ctx := context.Background()
	s, _ := newStoreWith(t, plan.StoreConfig{}, "ops", "# Ops\n- [ ] Rotate\n")
	_, _, err := s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)
	p, _, err := s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w1", Note: "only the staging logs"})
	require.NoError(t, err)
	_, err = s.Approve(ctx, "ops", p.Revision, "ana")
	require.NoError(t, err)
	p, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w1", Note: "and production"})
	require.NoError(t, err)
	assert.Equal(t, "# Ops\n- [~] Rotate — only the staging logs — and production (@w1)\n", p.Content)
	p, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w1", Note: "half done"})
	require.NoError(t, err)
	assert.Equal(t, "# Ops\n- [~] Rotate — only the staging logs — half done (@w1)\n", p.Content)
	assert.NotNil(t, p.Approval)
}

// The record of which note a renewal may replace is sealed with the approval: a plan file
// whose record was edited by hand reads as not approved.
func TestAnEditedRenewalRecordVoidsTheApproval(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: newLocal(t, root)})
	require.NoError(t, err)
	_, err = s.Put(ctx, plan.Update{Name: "ops", Content: ptr("# Ops\n- [ ] Rotate — staging only\n")})
	require.NoError(t, err)
	_, err = s.Approve(ctx, "ops", 1, "ana")
	require.NoError(t, err)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ops", Step: 1, State: plan.StepInProgress, By: "w1", Note: "ok"})
	require.NoError(t, err)

	var file string
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "ops.md" {
			file = p
		}
		return err
	}))
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	record := `renewal_notes: "1:` + fmt.Sprint(len(" — ok")) + `"`
	require.Contains(t, string(raw), record)
	forged := strings.Replace(string(raw), record, `renewal_notes: "1:`+fmt.Sprint(len(" — staging only — ok"))+`"`, 1)
	require.NoError(t, os.WriteFile(file, []byte(forged), 0o644))

	fresh, err := plan.NewStore(&plan.StoreConfig{Backend: newLocal(t, root)})
	require.NoError(t, err)
	p, err := fresh.Get(ctx, "ops")
	require.NoError(t, err)
	assert.Nil(t, p.Approval, "the record is part of what the seal covers")
}

const reviewedRelease = "# Release\n- [ ] Run the security review\n- [ ] Deploy to production (after 1)\n- [ ] Tell the team\n"

// writtenUnderRequirement has an agent named planner, under RequireApproval, write body as
// the plan release, and requires that write to succeed.
func writtenUnderRequirement(t *testing.T, backend plan.Backend, body string) {
	t.Helper()
	planner, err := plan.New(context.Background(), &plan.Config{Backend: backend, RequireApproval: true, AgentName: "planner"})
	require.NoError(t, err)
	results := runTools(t, plantest.NewScriptedModel(writePlanCall("release", body, 0), plantest.Answer("ok")), planner)
	require.Len(t, results, 1)
	require.Empty(t, errorCode(t, results[0]), results[0])
}

// approvedUnderRequirement writes reviewedRelease through an agent under RequireApproval and
// has a person approve it; it returns a host's Store on the same storage.
func approvedUnderRequirement(t *testing.T, backend plan.Backend) *plan.Store {
	t.Helper()
	ctx := context.Background()
	writtenUnderRequirement(t, backend, reviewedRelease)
	host := storeOn(t, backend, "")
	_, err := host.Approve(ctx, "release", 1, "ana")
	require.NoError(t, err)
	return host
}

// Under the approval requirement only a person skips a step others wait for: an agent that
// skips "Run the security review" to reach "Deploy to production (after 1)" is refused, with
// the steps that wait for it, and nothing is written; a person's skip through the Store goes
// through and unblocks the deploy.
func TestOnlyAPersonSkipsAStepOthersWaitFor(t *testing.T) {
	ctx := context.Background()
	for _, mwApproval := range []bool{true, false} {
		backend := plan.NewMemoryBackend()
		host := approvedUnderRequirement(t, backend)
		deployer, err := plan.New(ctx, &plan.Config{Backend: backend, RequireApproval: mwApproval, AgentName: "deployer"})
		require.NoError(t, err)
		model := plantest.NewScriptedModel(
			plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"skipped"}`),
			plantest.CallTool("update_plan_step", `{"name":"release","step":2,"status":"in_progress"}`),
			plantest.CallTool("update_plan_step", `{"name":"release","step":3,"status":"skipped","note":"nobody to tell"}`),
			plantest.Answer("stopped"),
		)
		results := runTools(t, model, deployer)
		require.Len(t, results, 3)
		assert.Equal(t, "illegal_transition", errorCode(t, results[0]), results[0])
		assert.Contains(t, results[0], `"waits":[2]`, "names the step that waits for it")
		assert.Contains(t, results[0], "person", "says who may skip it")
		assert.Equal(t, "step_blocked", errorCode(t, results[1]), results[1])
		assert.Empty(t, errorCode(t, results[2]), "a step nobody waits for an agent may skip: %s", results[2])

		p, err := host.Get(ctx, "release")
		require.NoError(t, err)
		assert.EqualValues(t, 3, p.Revision, "only the last move was written")
		steps := plan.ParseSteps(p.Content)
		assert.Equal(t, plan.StepPending, steps[0].State)
		assert.Equal(t, plan.StepPending, steps[1].State)
		require.NotNil(t, p.Approval)

		_, step, err := host.MoveStep(plan.WithActor(ctx, "ana"), plan.StepMove{Name: "release", Step: 1, State: plan.StepSkipped, Note: "reviewed offline"})
		require.NoError(t, err, "a person skips it")
		assert.Equal(t, plan.StepSkipped, step.State)
		results = runTools(t, plantest.NewScriptedModel(
			plantest.CallTool("update_plan_step", `{"name":"release","step":2,"status":"in_progress"}`),
			plantest.Answer("deploying")), deployer)
		require.Len(t, results, 1)
		assert.Empty(t, errorCode(t, results[0]), results[0])
	}
}

// Without the approval requirement agents skip steps as before, those others wait for too.
func TestAgentsSkipStepsOfPlansWithoutTheRequirement(t *testing.T) {
	ctx := context.Background()
	s, _ := newStoreWith(t, plan.StoreConfig{}, "release", reviewedRelease)
	_, err := s.Approve(ctx, "release", 1, "ana")
	require.NoError(t, err)
	agent, err := plan.New(ctx, &plan.Config{Store: s, AgentName: "deployer"})
	require.NoError(t, err)
	results := runTools(t, plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"skipped"}`),
		plantest.Answer("ok")), agent)
	require.Len(t, results, 1)
	assert.Empty(t, errorCode(t, results[0]), results[0])
}

// nextPlan has a step that waits for a later one (2 for 4) and one that waits for the first
// (3 for 1), so the next ready step is never simply the next line.
const nextPlan = "# Release\n- [ ] Build\n- [ ] Publish (after 4)\n- [ ] Test (after 1)\n- [ ] Sign\n"

// A move with Next finishes a step and takes the next ready step for the same agent in one
// write: one revision and one history entry per transition; the step taken is the one a move
// of no step number would take on the plan as the finish left it (a step that waited only
// for the finished one is ready, a step waiting for another is passed over); the last
// step completes without an error and takes nothing.
func TestACompletionWithNextHoldsTheNextReadyStepInOneRevision(t *testing.T) {
	for bname, backend := range proofBackends(t) {
		t.Run(bname, func(t *testing.T) {
			ctx := context.Background()
			store := storeOn(t, backend, "")
			body := nextPlan
			_, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
			require.NoError(t, err)
			_, first, err := store.MoveStep(ctx, plan.StepMove{Name: "release", State: plan.StepInProgress, By: "w"})
			require.NoError(t, err)
			require.Equal(t, 1, first.Number)

			at := first.Number
			for _, want := range []int{3, 4, 2} {
				before := historyLen(t, store)
				p, held, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: at, State: plan.StepCompleted, By: "w", Next: true})
				require.NoError(t, err)
				assert.Equal(t, want, held.Number, "after step %d", at)
				assert.Equal(t, plan.StepInProgress, held.State)
				assert.Equal(t, "w", held.Holder)
				assert.Equal(t, plan.StepCompleted, plan.ParseSteps(p.Content)[at-1].State, "step %d finished in the same revision", at)
				assert.Equal(t, before+1, historyLen(t, store), "one history entry")
				at = held.Number
			}
			rev := revisionNow(t, store)
			p, last, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: at, State: plan.StepCompleted, By: "w", Next: true})
			require.NoError(t, err, "the last step completes without an error")
			assert.Equal(t, rev+1, p.Revision)
			assert.Equal(t, at, last.Number)
			assert.Equal(t, plan.StepCompleted, last.State)
			assert.Equal(t, 100, plan.Summarize(p).Progress.Percent)
		})
	}
}

// Next rides with a skip (of a pending step) or a failure too; a failed step is not done, so a step that waits
// for it is passed over. With a move that finishes nothing it is invalid_argument, and
// nothing is written.
func TestNextRidesWithASkipOrAFailure(t *testing.T) {
	for _, tc := range []struct {
		state plan.StepState
		want  int
	}{{plan.StepSkipped, 3}, {plan.StepFailed, 4}} {
		t.Run(string(tc.state), func(t *testing.T) {
			ctx := context.Background()
			store := storeOn(t, plan.NewMemoryBackend(), "")
			body := nextPlan
			_, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
			require.NoError(t, err)
			if tc.state == plan.StepFailed { // a step in progress fails; a pending one is skipped
				_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepInProgress, By: "w"})
				require.NoError(t, err)
			}
			rev := revisionNow(t, store)
			_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepPending, By: "w", Next: true})
			assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err))
			assert.Equal(t, rev, revisionNow(t, store), "nothing written")

			p, held, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: tc.state, By: "w", Next: true})
			require.NoError(t, err)
			assert.Equal(t, rev+1, p.Revision)
			assert.Equal(t, tc.want, held.Number)
			assert.Equal(t, "w", held.Holder)
			assert.Equal(t, tc.state, plan.ParseSteps(p.Content)[0].State)
		})
	}
}

// Through a real agent run: the model completes its step with next: true and, in the same
// call, holds the next ready step; the result names it and the progress, in at most a few
// fields; then it runs a gated tool under that step. On the last step the result says that
// no step is ready, in the model's language, and the run goes on.
func TestAnAgentFinishesAStepAndTakesTheNextInOneCall(t *testing.T) {
	for _, lg := range proofLanguages {
		t.Run(lg.name, func(t *testing.T) {
			ctx := context.Background()
			store := approvedReleaseStore(t, ctx, plan.NewMemoryBackend(), "# Release\n- [ ] Build\n- [ ] Deploy (uses probe)\n")
			m := plantest.NewScriptedModel(
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","status":"in_progress"}`),
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"go build ok","next":true}`),
				plantest.CallTool("probe", `{"what":"deploy"}`),
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed","evidence":"deployed","next":true}`),
			)
			var costs []plan.CostReport
			mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, GatedTools: []string{"probe"},
				OnCost: func(_ context.Context, r plan.CostReport) { costs = append(costs, r) }})
			require.NoError(t, err)
			before := historyLen(t, store)
			results := toolResultsOf(t, runWorker(t, m, false, mw))
			require.Len(t, results, 4)
			assert.JSONEq(t, `{"revision":4,"step":2,"done":"1/2"}`, results[1], "the step held now and the progress, nothing the digest says")
			assert.Equal(t, "ok", results[2], "the gated tool ran under the step taken")
			none := map[adk.Language]string{adk.LanguageEnglish: "no step is ready", adk.LanguageChinese: "没有可领取的步骤"}[lg.lang]
			assert.Contains(t, resultField(t, results[3], "next"), none, results[3])
			assert.EqualValues(t, 2, resultField(t, results[3], "step"))
			assert.Equal(t, before+3, historyLen(t, store), "one entry per call: take, complete-and-take, complete")
			require.Len(t, costs, 2, "each finished step's cost is reported once")
			assert.Equal(t, 1, costs[0].Step)
			assert.Equal(t, 2, costs[1].Step)
		})
	}
}

// The instruction teaches the ride-along in both languages, for the full set and the lean
// worker: finish a step and take the next in the message of the next work call.
func TestTheInstructionTeachesTheRideAlong(t *testing.T) {
	ctx := context.Background()
	for _, lean := range []bool{false, true} {
		for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
			mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), AgentName: "w", LeanWorker: lean, Language: lang})
			require.NoError(t, err)
			_, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{})
			require.NoError(t, err)
			assert.Contains(t, rc.Instruction, "next: true", "lean %v, language %v", lean, lang)
			found := false
			for _, bt := range rc.Tools {
				info, err := bt.Info(ctx)
				require.NoError(t, err)
				if info.Name != plan.ToolUpdatePlanStep {
					continue
				}
				js, err := info.ParamsOneOf.ToJSONSchema()
				require.NoError(t, err)
				next, ok := js.Properties.Get("next")
				require.True(t, ok)
				found = strings.TrimSpace(next.Description) != ""
			}
			assert.True(t, found, "update_plan_step describes next")
		}
	}
}

func historyLen(t *testing.T, store *plan.Store) int {
	t.Helper()
	revs, err := store.History(context.Background(), "release")
	require.NoError(t, err)
	return len(revs)
}

func revisionNow(t *testing.T, store *plan.Store) int64 {
	t.Helper()
	p, err := store.Get(context.Background(), "release")
	require.NoError(t, err)
	return p.Revision
}

// A move names neither the plan nor the step when only one fits: with two plans, a take of
// no name is refused (nothing written, the plans named); once the run holds a step of one,
// its moves of no name are of that plan, and a completion of no step finishes the one step
// the run holds, one revision each, with next taking the next ready step; where there is
// one plan a take of no name is of it. In English and Chinese.
func TestAMoveNamesNeitherThePlanNorTheStepWhenOnlyOneFits(t *testing.T) {
	for _, lg := range proofLanguages {
		t.Run(lg.name, func(t *testing.T) {
			ctx := context.Background()
			store := storeOn(t, plan.NewMemoryBackend(), "")
			body, other := nextPlan, "# Other\n- [ ] Elsewhere\n"
			_, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
			require.NoError(t, err)
			_, err = store.Put(ctx, plan.Update{Name: "other", Content: &other})
			require.NoError(t, err)
			m := plantest.NewScriptedModel(
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`),
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","status":"in_progress"}`),
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"status":"completed","next":true}`),
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"status":"completed"}`),
			)
			mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, LeanWorker: true})
			require.NoError(t, err)
			before := historyLen(t, store)
			results := toolResultsOf(t, runWorker(t, m, false, mw))
			require.Len(t, results, 4)
			assert.Equal(t, "invalid_argument", errorCode(t, results[0]), results[0])
			assert.Contains(t, results[0], "name", "it says what to pass")
			assert.Contains(t, results[0], "other, release", "it names the plans")
			assert.JSONEq(t, `{"revision":2,"step":1,"done":"0/4"}`, results[1])
			assert.JSONEq(t, `{"revision":3,"step":3,"done":"1/4"}`, results[2], "step 1 finished, step 3 (after 1) taken")
			assert.JSONEq(t, `{"revision":4,"step":3,"done":"2/4"}`, results[3])
			assert.Equal(t, before+3, historyLen(t, store), "one revision a move, none for the refusal")
			p, err := store.Get(ctx, "other")
			require.NoError(t, err)
			assert.EqualValues(t, 1, p.Revision, "the other plan untouched")

			_, err = store.Delete(ctx, "other", nil)
			require.NoError(t, err)
			m = plantest.NewScriptedModel(plantest.CallTool(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`))
			results = toolResultsOf(t, runWorker(t, m, false, mw))
			assert.JSONEq(t, `{"revision":5,"step":4,"done":"2/4"}`, results[0], "the only plan")
		})
	}
}

// next: true alone finishes the step the caller holds as completed and takes the next ready
// one, in one revision; a move that names neither a state nor next is refused, in the
// model's language, and writes nothing.
func TestNextAloneCompletesTheHeldStepAndTakesTheNext(t *testing.T) {
	for _, lg := range proofLanguages {
		t.Run(lg.name, func(t *testing.T) {
			ctx := context.Background()
			store := storeOn(t, plan.NewMemoryBackend(), "")
			body := nextPlan
			_, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
			require.NoError(t, err)
			m := plantest.NewScriptedModel(
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`),
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"next":true}`),
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"step":3}`),
			)
			mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, LeanWorker: true})
			require.NoError(t, err)
			results := toolResultsOf(t, runWorker(t, m, false, mw))
			require.Len(t, results, 3)
			assert.JSONEq(t, `{"revision":3,"step":3,"done":"1/4"}`, results[1], "step 1 completed, step 3 taken")
			assert.Equal(t, "invalid_argument", errorCode(t, results[2]), results[2])
			assert.Contains(t, results[2], map[adk.Language]string{adk.LanguageEnglish: "status is required", adk.LanguageChinese: "缺少必填参数 status"}[lg.lang])
			p, err := store.Get(ctx, "release")
			require.NoError(t, err)
			assert.EqualValues(t, 3, p.Revision, "nothing written by the refusal")
			steps := plan.ParseSteps(p.Content)
			assert.Equal(t, plan.StepCompleted, steps[0].State)
			assert.Equal(t, plan.StepInProgress, steps[2].State)
		})
	}
}

// A completion of no step that cannot tell which step it means is refused, saying what to
// pass, in the model's language, and nothing is written: the mover holds no step of the
// plan, or several. So with evidence required, which checks the completion first.
func TestACompletionOfNoStepThatCouldMeanNoneOrSeveralWritesNothing(t *testing.T) {
	say := map[adk.Language][2]string{adk.LanguageEnglish: {"you hold no step", "you hold 2 steps"}, adk.LanguageChinese: {"没有持有进行中的步骤", "持有 2 个进行中的步骤"}}
	for _, lg := range proofLanguages {
		for _, evidence := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/evidence=%v", lg.name, evidence), func(t *testing.T) {
				ctx := context.Background()
				store := storeOn(t, plan.NewMemoryBackend(), "")
				body := nextPlan
				_, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
				require.NoError(t, err)
				done := `{"status":"completed","evidence":"built","next":true}`
				m := plantest.NewScriptedModel(
					plantest.CallTool(plan.ToolUpdatePlanStep, done),
					plantest.CallTool(plan.ToolUpdatePlanStep, `{"step":1,"status":"in_progress"}`),
					plantest.CallTool(plan.ToolUpdatePlanStep, `{"step":4,"status":"in_progress"}`),
					plantest.CallTool(plan.ToolUpdatePlanStep, done),
				)
				mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, RequireEvidence: evidence})
				require.NoError(t, err)
				results := toolResultsOf(t, runWorker(t, m, false, mw))
				require.Len(t, results, 4)
				for i, want := range map[int]string{0: say[lg.lang][0], 3: say[lg.lang][1]} {
					assert.Equal(t, "invalid_argument", errorCode(t, results[i]), results[i])
					assert.Contains(t, results[i], want, results[i])
					assert.Contains(t, results[i], "step", "it says to pass step")
				}
				assert.Contains(t, results[3], "1, 4", "it names the steps held")
				assert.EqualValues(t, 3, revisionNow(t, store), "the two takes only")
			})
		}
	}
}
