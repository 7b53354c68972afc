package plan_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// a provider that sends tool calls without an ID (several OpenAI-compatible servers
// do) makes a sub-agent look like "the same run" as its top-level parent, whose mark has
// callID "" too: the sub-agent is then an orchestrator and gets plan_template.
func TestRegressionEmptyToolCallIDMakesSubAgentAnOrchestrator(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	noID := func([]*schema.Message) *schema.Message {
		return &schema.Message{Role: schema.Assistant, ToolCalls: []schema.ToolCall{{ID: "", Type: "function",
			Function: schema.FunctionCall{Name: "worker", Arguments: `{"request":"Do step 1 of plan ship"}`}}}}
	}
	m := orchestratorThenWorker(plantest.Turn(noID))
	workerTool := adk.NewAgentTool(ctx, newWorker(t, ctx, m, mw))
	main, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "main", Description: "orchestrator",
		Instruction: "You plan.", Model: m, Handlers: []adk.ChatModelAgentMiddleware{mw},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: toolsNode(workerTool)}})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: main}).Query(ctx, "ship it"))
	assertRoles(t, m, backend)
}
