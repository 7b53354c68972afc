package plan_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
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
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	forged := "- [ ] Ship (@victim)\n- [~] Build (@victim)\n"
	_, err = s.Put(ctx, plan.Update{Name: "p", Content: &forged})
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
	ls, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
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
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	for _, body := range []string{
		"- [ ] Deploy\n- [ ] Test\n",
		"- [x] Deploy — to prod instead\n- [ ] Test\n",
		"- [ ] Deploy — to prod instead — and drop staging\n- [ ] Test\n",
	} {
		_, err = s.Put(ctx, plan.Update{Name: "p", Content: ptr(body)})
		require.NoError(t, err)
	}
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "p", Step: 1, State: plan.StepInProgress, By: "w", IfRevision: rev(1)})
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

func newTeamStore(t *testing.T, cfg plan.StoreConfig) (*plan.Store, plan.Backend) {
	t.Helper()
	if cfg.Backend == nil {
		cfg.Backend = plan.NewMemoryBackend()
	}
	s, err := plan.NewStore(&cfg)
	require.NoError(t, err)
	body := teamBody
	_, err = s.Put(context.Background(), plan.Update{Name: "team", Content: &body})
	require.NoError(t, err)
	return s, cfg.Backend
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
