package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

const releaseSteps = "# Release\n- [ ] Build\n- [ ] Publish to prod\n"

// Under RequireApproval a rewrite is judged step by step: one that finishes a step nobody
// approved is refused even when it leaves as many steps done as before.
func TestARewriteCannotFinishAnUnapprovedStep(t *testing.T) {
	ctx := context.Background()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	mw, err := plan.New(ctx, &plan.Config{Store: s, RequireApproval: true, AgentName: "planner"})
	require.NoError(t, err)
	_, err = s.Put(ctx, plan.Update{Name: "release", Content: ptr(releaseSteps)})
	require.NoError(t, err)
	_, err = s.Approve(ctx, "release", 1, "ana")
	require.NoError(t, err)

	swapped := strings.Replace(strings.Replace(releaseSteps, "- [ ] Publish", "- [x] Publish", 1), "- [ ] Build", "- [ ] Build", 1)
	model := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"completed"}`),
		writePlanCall("release", swapped, 3),
		plantest.Answer("done"),
	)
	results := runTools(t, model, mw)
	require.Len(t, results, 2)
	assert.Empty(t, errorCode(t, results[0]), results[0])
	assert.Equal(t, "not_approved", errorCode(t, results[1]), results[1])
	p, err := s.Get(ctx, "release")
	require.NoError(t, err)
	assert.EqualValues(t, 3, p.Revision, "nothing was written")
	assert.Contains(t, p.Content, "- [ ] Publish to prod")
}

// The approval requirement belongs to the plan: a plan written under RequireApproval keeps
// it, and a middleware or Store on the same storage that does not ask for approvals still
// refuses to move its steps until it is approved.
func TestTheApprovalRequirementBelongsToThePlan(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	strict, err := plan.New(ctx, &plan.Config{Backend: backend, RequireApproval: true, AgentName: "planner"})
	require.NoError(t, err)
	results := runTools(t, plantest.NewScriptedModel(writePlanCall("release", releaseSteps, 0), plantest.Answer("ok")), strict)
	require.Len(t, results, 1)
	require.Empty(t, errorCode(t, results[0]), results[0])

	lax, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "worker"})
	require.NoError(t, err)
	results = runTools(t, plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"in_progress"}`),
		plantest.Answer("ok")), lax)
	require.Len(t, results, 1)
	assert.Equal(t, "not_approved", errorCode(t, results[0]), results[0])

	host, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, _, err = host.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted})
	assert.Equal(t, plan.CodeNotApproved, plan.CodeOf(err), "a host's Store enforces it too")
	body := "# Release\n- [x] Build\n"
	_, err = host.Put(ctx, plan.Update{Name: "release", Content: &body})
	assert.Equal(t, plan.CodeNotApproved, plan.CodeOf(err), "and so do rewrites")

	p, err := host.Get(ctx, "release")
	require.NoError(t, err)
	assert.True(t, p.RequiresApproval)
	_, err = host.Approve(ctx, "release", p.Revision, "ana")
	require.NoError(t, err)
	_, _, err = host.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted})
	assert.NoError(t, err, "once approved, steps move")
}
