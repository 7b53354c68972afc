package plan_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// personalNames renames every plan tool with a "my_" prefix.
func personalNames() map[string]string {
	names := map[string]string{}
	for _, n := range []string{plan.ToolWritePlan, plan.ToolReadPlan, plan.ToolListPlans, plan.ToolDeletePlan,
		plan.ToolSetPlanStatus, plan.ToolGetPlanStatus, plan.ToolUpdatePlanStep, plan.ToolPlanTemplate} {
		names[n] = "my_" + n
	}
	return names
}

// TestTwoPlanMiddlewaresOnOneAgent: team plans and personal plans on one agent, each under
// its own tool names, each call landing in its own storage.
func TestTwoPlanMiddlewaresOnOneAgent(t *testing.T) {
	ctx := context.Background()
	team, personal := plan.NewMemoryBackend(), plan.NewMemoryBackend()
	teamMW, err := plan.New(ctx, &plan.Config{Backend: team})
	require.NoError(t, err)
	mineMW, err := plan.New(ctx, &plan.Config{Backend: personal, ToolNames: personalNames()})
	require.NoError(t, err)

	model := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"release","content":"- [ ] ship\n"}`),
		plantest.CallTool("my_write_plan", `{"name":"notes","content":"- [ ] read\n"}`),
		plantest.CallTool("my_plan_template", `{"goal":"learn"}`),
		plantest.CallTool("plan_template", `{"goal":"ship"}`),
		plantest.Answer("done"),
	)
	results := toolResults(runAgent(t, model, teamMW, mineMW))
	require.Len(t, results, 4)
	for _, r := range results[:2] {
		assert.Empty(t, errorCode(t, r), r)
	}
	for _, r := range results[2:] {
		assert.NotContains(t, r, `"error"`)
	}
	assert.Contains(t, results[2], "my_write_plan", "the template names the renamed tools")
	assert.NotContains(t, results[2], " write_plan")

	teamStore, _ := plan.NewStore(&plan.StoreConfig{Backend: team})
	mineStore, _ := plan.NewStore(&plan.StoreConfig{Backend: personal})
	_, err = teamStore.Get(ctx, "release")
	assert.NoError(t, err)
	_, err = teamStore.Get(ctx, "notes")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
	_, err = mineStore.Get(ctx, "notes")
	assert.NoError(t, err)

	calls := model.Calls()
	require.NotEmpty(t, calls)
	names := map[string]int{}
	for _, info := range calls[0].Tools {
		names[info.Name]++
	}
	assert.Equal(t, 1, names["write_plan"])
	assert.Equal(t, 1, names["my_write_plan"])
	assert.Equal(t, 1, names["plan_template"], "both templates stay: the agent is the orchestrator for both")
	assert.Equal(t, 1, names["my_plan_template"])
	sys := calls[0].Input[0].Content
	assert.Contains(t, sys, "my_list_plans first", "the second instruction names its own tools")
}

// TestDuplicateToolNamesAreRefused: two plan middlewares under the same names fail the run
// at its start with an error that says what to do, instead of silently shadowing each other.
func TestDuplicateToolNamesAreRefused(t *testing.T) {
	ctx := context.Background()
	a, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	b, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
		Model: plantest.NewScriptedModel(plantest.Answer("x")), Handlers: []adk.ChatModelAgentMiddleware{a, b}})
	require.NoError(t, err)
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
	var runErr error
	for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
		if ev.Err != nil {
			runErr = ev.Err
		}
	}
	require.Error(t, runErr)
	assert.Contains(t, runErr.Error(), `two tools named "write_plan"`)
	assert.Contains(t, runErr.Error(), "ToolNames")

	for _, bad := range []map[string]string{{"write_plan": "read_plan"}, {"nope": "x"}, {"write_plan": "a b"}} {
		_, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), ToolNames: bad})
		assert.Error(t, err, "%v", bad)
	}
}
