package plan_test

import (
	"context"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// alwaysLoses is a driver.Swapper whose compare-and-swap never wins (another machine always
// writes first).
type alwaysLoses struct{ *plan.MemoryBackend }

func (alwaysLoses) CompareAndSwap(context.Context, *driver.WriteRequest, *string) (bool, error) {
	return false, nil
}

// A write that keeps losing its compare-and-swap fails with a message that names the plan, in
// English and in Chinese.
func TestContentionErrorNamesThePlan(t *testing.T) {
	ctx := context.Background()
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		mw, err := plan.New(ctx, &plan.Config{Backend: alwaysLoses{plan.NewMemoryBackend()}, Language: lang})
		require.NoError(t, err)
		model := plantest.NewScriptedModel(plantest.CallTool("write_plan", `{"name":"release","content":"- [ ] x\n"}`), plantest.Answer("ok"))
		results := toolResults(runAgent(t, model, mw))
		require.Len(t, results, 1)
		t.Log(results[0])
		assert.NotContains(t, results[0], `\"\"`, "the message names the plan")
		assert.Contains(t, results[0], "release")
	}
}
