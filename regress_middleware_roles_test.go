package plan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// two plan middlewares on one agent with different explicit roles. The role lives in
// one context key shared by both, so the last BeforeAgent wins: the team middleware, set
// to RoleOrchestrator, loses its own plan_template (hidden from the model, and refused
// with tool_not_available), while its instruction still says "call plan_template first".
func TestRegressionTwoMiddlewaresWithDifferentRoles(t *testing.T) {
	ctx := context.Background()
	teamMW, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Role: plan.RoleOrchestrator})
	require.NoError(t, err)
	mineMW, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), ToolNames: personalNames(), Role: plan.RoleSubAgent})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("plan_template", `{"goal":"ship"}`),
		plantest.Answer("done"),
	)
	results := toolResults(runAgent(t, model, teamMW, mineMW))
	require.Len(t, results, 1)
	assert.NotContains(t, results[0], `"error"`, results[0])
	names := map[string]bool{}
	for _, info := range model.Calls()[0].Tools {
		names[info.Name] = true
	}
	assert.True(t, names["plan_template"], "RoleOrchestrator's plan_template is shown")
	assert.False(t, names["my_plan_template"], "RoleSubAgent's is hidden")
	assert.Contains(t, model.Calls()[0].Input[0].Content, "call plan_template first")
}
