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

// in Chinese mode a mistyped argument is reported with an English type name.
func TestRegressionTypeNamesStayEnglishInChinese(t *testing.T) {
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

// err.undecodable and err.stored_too_large say "delete it with delete_plan"; the
// model, told to pass last_known_revision on every change, does so, and gets the same
// error and the same advice again: a loop. Only an unguarded delete recovers the name
// (err.not_plan_file says so; these two do not).
func TestRegressionCorruptAdviceLoops(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	require.NoError(t, mem.Write(ctx, &plan.WriteRequest{FilePath: "/plans/broken.md", Content: "---\nrevision: 3\ntitle: oops\n---\n- [ ] x\n"}))
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
