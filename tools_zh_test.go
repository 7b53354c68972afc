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

// In Chinese mode an argument of the wrong type is reported with no English type name.
func TestChineseArgumentErrorsNameTypesInChinese(t *testing.T) {
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Language: adk.LanguageChinese})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("read_plan", `{"name":5}`),
		plantest.CallTool("update_plan_step", `{"name":"p","step":"one","status":"completed"}`),
		plantest.Answer("ok"))
	for _, r := range toolResults(runAgent(t, model, mw)) {
		t.Log(r)
		assert.NotRegexp(t, `a number|a string|an array|an object|a boolean`, r, "no English in Chinese mode")
	}
}
