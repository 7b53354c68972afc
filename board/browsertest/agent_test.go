package browsertest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// runAgent runs a real Eino ChatModelAgent named name, with the plan middleware on store,
// whose scripted model plays turns; it returns the result of each tool call in order.
func runAgent(t *testing.T, store *plan.Store, name string, requireApproval bool, turns ...plantest.Turn) []string {
	t.Helper()
	return runAgentWith(t, &plan.Config{Store: store, AgentName: name, RequireApproval: requireApproval}, nil, turns...)
}

// runAgentWith is runAgent with the middleware of cfg (its AgentName names the agent) and
// the agent's own tools.
func runAgentWith(t *testing.T, cfg *plan.Config, tools []tool.BaseTool, turns ...plantest.Turn) []string {
	t.Helper()
	ctx := context.Background()
	mw, err := plan.New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: cfg.AgentName, Description: "works on plans", Instruction: "You work on plans.",
		Model: plantest.NewScriptedModel(turns...), Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 20,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return plantest.RunAgent(t, ctx, agent, "go")
}

// errorCode is the error code of a tool result, "" when it succeeded.
var errorCode = plantest.ErrorCode

// moveStep is the model's turn that moves a step with update_plan_step.
func moveStep(planName string, step int, status string) plantest.Turn {
	args, _ := json.Marshal(map[string]any{"name": planName, "step": step, "status": status})
	return plantest.CallTool(plan.ToolUpdatePlanStep, string(args))
}

// fixedTool is a tool of the agent's own that always answers the same.
type fixedTool struct{ name, answer string }

func (f fixedTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: f.name, Desc: "runs " + f.name,
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"arg": {Type: schema.String}})}, nil
}

func (f fixedTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return f.answer, nil
}
