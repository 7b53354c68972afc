package einoext_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// runAgent runs a real ChatModelAgent with the plan middleware and a scripted model to the
// end and returns the results of its tool calls in order; an error event fails the test.
func runAgent(t *testing.T, cfg *plan.Config, turns ...plantest.Turn) []string {
	t.Helper()
	ctx := context.Background()
	mw, err := plan.New(ctx, cfg)
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "planner", Description: "plans", Instruction: "You plan.",
		Model: plantest.NewScriptedModel(turns...), Handlers: []adk.ChatModelAgentMiddleware{mw},
	})
	require.NoError(t, err)
	results := plantest.RunAgent(t, ctx, agent, "go")
	require.Len(t, results, len(turns), "one result per scripted tool call")
	return results
}

// errorCode returns the code of a tool's error result, or "" for a success.
var errorCode = plantest.ErrorCode

// stepsBody is a plan body of n pending steps, well over the 2,000 lines eino-ext's local
// backend reads when a request leaves Limit at 0.
func stepsBody(n int) string {
	var b strings.Builder
	b.WriteString("# Migration\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] move table %04d\n", i)
	}
	return b.String()
}

// jsonArgs encodes tool arguments.
func jsonArgs(t *testing.T, v map[string]any) string {
	t.Helper()
	s, err := sonic.MarshalString(v)
	require.NoError(t, err)
	return s
}
