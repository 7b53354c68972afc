package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A long path quoted in a message is shortened at a rune boundary: a Chinese path in a Chinese
// message shows no byte escapes.
func TestQuotedPathIsNeverCutMidRune(t *testing.T) {
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: plan.NewMemoryBackend(), Language: adk.LanguageChinese})
	require.NoError(t, err)
	path := "工作/" + strings.Repeat("计划", 20) + ".md" // relative: refused, and the message quotes it
	model := plantest.NewScriptedModel(plantest.CallTool("export_plan_to_file", `{"name":"p","path":"`+path+`"}`), plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	require.Len(t, results, 1)
	t.Log(results[0])
	assert.NotContains(t, results[0], `\\x`, "no byte escapes in the quoted path")
}
