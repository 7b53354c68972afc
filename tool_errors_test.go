package plan_test

import (
	"context"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// The advice for a plan that cannot be decoded says to delete it without last_known_revision,
// and following it works.
func TestCorruptPlanAdviceLeadsToAWorkingDelete(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	require.NoError(t, mem.Write(ctx, &driver.WriteRequest{FilePath: "/plans/broken.md", Content: "---\nrevision: 3\ntitle: oops\n---\n- [ ] x\n"}))
	mw, err := plan.New(ctx, &plan.Config{Backend: mem})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("read_plan", `{"name":"broken"}`),
		plantest.CallTool("delete_plan", `{"name":"broken"}`),
		plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	require.Len(t, results, 2)
	assert.Contains(t, results[0], "without last_known_revision", "the advice says how to delete it")
	assert.Empty(t, errorCode(t, results[1]), "following the advice works")
}
