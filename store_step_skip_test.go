package plan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

const reviewedRelease = "# Release\n- [ ] Run the security review\n- [ ] Deploy to production (after 1)\n- [ ] Tell the team\n"

// approvedUnderRequirement writes reviewedRelease through an agent under RequireApproval and
// has a person approve it; it returns a host's Store on the same storage.
func approvedUnderRequirement(t *testing.T, backend plan.Backend) *plan.Store {
	t.Helper()
	ctx := context.Background()
	planner, err := plan.New(ctx, &plan.Config{Backend: backend, RequireApproval: true, AgentName: "planner"})
	require.NoError(t, err)
	results := runTools(t, plantest.NewScriptedModel(writePlanCall("release", reviewedRelease, 0), plantest.Answer("ok")), planner)
	require.Len(t, results, 1)
	require.Empty(t, errorCode(t, results[0]), results[0])
	host, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = host.Approve(ctx, "release", 1, "ana")
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
	backend := plan.NewMemoryBackend()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = s.Put(ctx, plan.Update{Name: "release", Content: ptr(reviewedRelease)})
	require.NoError(t, err)
	_, err = s.Approve(ctx, "release", 1, "ana")
	require.NoError(t, err)
	agent, err := plan.New(ctx, &plan.Config{Store: s, AgentName: "deployer"})
	require.NoError(t, err)
	results := runTools(t, plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"skipped"}`),
		plantest.Answer("ok")), agent)
	require.Len(t, results, 1)
	assert.Empty(t, errorCode(t, results[0]), results[0])
}
