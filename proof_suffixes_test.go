package plan_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A step whose own text contains " — " still asks for review and keeps its budget: its doer's
// completion awaits review, as for any other "(review)" step.
func TestAReviewStepWhoseTextHasADashStillAwaitsReview(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] Ship v2 — the web part (review) (budget 10m)\n"
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
	st := plan.ParseSteps(body)[0]
	assert.True(t, st.Review)
	require.NotNil(t, st.Budget)
	assert.Equal(t, 10*time.Minute, st.Budget.Time)

	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"deployed"}`),
	)
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1"})
	require.NoError(t, err)
	results := toolResults(runAgent(t, m, mw))
	require.Len(t, results, 2)
	assert.Equal(t, "", errorCode(t, results[1]), results[1])
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	st = plan.ParseSteps(p.Content)[0]
	assert.Equal(t, plan.StepInProgress, st.State, p.Content)
	assert.True(t, st.AwaitingReview)
	assert.Equal(t, "worker-1", st.DoneBy)
	assert.Equal(t, "deployed", st.Evidence)
}

// A note that would read as the step's own "(review)" or "(budget …)" is refused, so a move
// never changes what a step asks for, and nothing is written.
func TestANoteCannotChangeWhatAStepAsksFor(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] Ship (review)\n- [ ] Tell\n"
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
	for _, mv := range []plan.StepMove{
		{Name: "release", Step: 1, State: plan.StepInProgress, By: "ana", Note: "fast (budget 1m)"},
		{Name: "release", Step: 2, State: plan.StepInProgress, By: "ana", Note: "see (review)"},
		{Name: "release", Step: 2, State: plan.StepSkipped, Note: "later (budget 20k tokens)"},
	} {
		_, _, err := store.MoveStep(ctx, mv)
		var e *plan.Error
		require.ErrorAs(t, err, &e, mv.Note)
		assert.Equal(t, plan.CodeInvalidArgument, e.Code)
	}
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, body, p.Content)
}

// A note that would read as evidence or a cost, or evidence that would read as a cost, is
// refused: Step.Evidence and Step.Cost are only ever what a move gave as such.
func TestANoteOrEvidenceCannotForgeEvidenceOrCost(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] Build\n- [ ] Test\n"
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)

	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","note":"evidence: go test ./... exit 0"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","note":"done — cost: 1+1 tokens, 1 call, 0 tools, 1s"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"ok — cost: 1+1 tokens, 1 call, 0 tools, 1s"}`),
	)
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1"})
	require.NoError(t, err)
	results := toolResults(runAgent(t, m, mw))
	require.Len(t, results, 3)
	for _, r := range results {
		assert.Equal(t, string(plan.CodeInvalidArgument), errorCode(t, r), r)
	}
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, body, p.Content, "nothing is written")

	_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 2, State: plan.StepSkipped, Note: "cost: 9+9 tokens, 2 calls, 1 tool, 5s"})
	var e *plan.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, plan.CodeInvalidArgument, e.Code)
}

// Evidence that mentions a review in its own words reads back whole, before and after the
// review's mark.
func TestEvidenceMentioningAReviewReadsBackWhole(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] Build (review)\n- [ ] Test\n"
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
	const ev = "flaky test (reviewed by hand) passes on rerun"
	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"`+ev+`"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed","evidence":"`+ev+`"}`),
	)
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1"})
	require.NoError(t, err)
	for _, r := range toolResults(runAgent(t, m, mw)) {
		assert.Equal(t, "", errorCode(t, r), r)
	}
	_, st, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted, By: "bob"})
	require.NoError(t, err)
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	steps := plan.ParseSteps(p.Content)
	assert.Equal(t, ev, st.Evidence)
	assert.Equal(t, ev, steps[0].Evidence, p.Content)
	assert.Equal(t, plan.StepCompleted, steps[0].State)
	assert.Equal(t, ev, steps[1].Evidence, p.Content)
}

// A completion based on a revision from before a step awaited review does not complete its
// review: the reviewer never saw the work it would approve (step_moved), and nothing is
// written. Based on a revision that shows it awaiting review, it does.
func TestAStaleCompletionDoesNotReviewWorkItNeverSaw(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] Build (review)\n- [ ] Test\n"
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"built"}`),
	)
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "ana"})
	require.NoError(t, err)
	for _, r := range toolResults(runAgent(t, m, mw)) {
		require.Equal(t, "", errorCode(t, r), r)
	}
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	require.True(t, plan.ParseSteps(p.Content)[0].AwaitingReview, p.Content)
	seen := p.Revision - 1 // step 1 held by ana, its work not done yet

	_, _, err = store.MoveStep(plan.WithActor(ctx, "bob"), plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted, IfRevision: &seen})
	var e *plan.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, plan.CodeRevisionConflict, e.Code)
	now, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, p.Content, now.Content, "nothing is written")

	_, st, err := store.MoveStep(plan.WithActor(ctx, "bob"), plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted, IfRevision: &now.Revision})
	require.NoError(t, err)
	assert.Equal(t, plan.StepCompleted, st.State)
	assert.Equal(t, "built", st.Evidence)
}
