package browsertest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// runAgent runs a real Eino ChatModelAgent named name, with the plan middleware on store,
// whose scripted model plays turns; it returns the result of each tool call in order.
func runAgent(t *testing.T, store *plan.Store, name string, requireApproval bool, turns ...plantest.Turn) []string {
	t.Helper()
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: name, RequireApproval: requireApproval})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: name, Description: "works on plans", Instruction: "You work on plans.",
		Model: plantest.NewScriptedModel(turns...), Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
	var results []string
	for {
		ev, ok := iter.Next()
		if !ok {
			return results
		}
		if ev.Err != nil {
			t.Fatalf("agent %s: %v", name, ev.Err)
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			if msg := ev.Output.MessageOutput.Message; msg != nil && msg.Role == schema.Tool {
				results = append(results, msg.Content)
			}
		}
	}
}

// errorCode is the error code of a tool result, "" when it succeeded.
func errorCode(t *testing.T, result string) string {
	t.Helper()
	var r struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(result), &r); err != nil {
		t.Fatalf("a tool result that is not JSON: %v: %s", err, result)
	}
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// moveStep is the model's turn that moves a step with update_plan_step.
func moveStep(planName string, step int, status string) plantest.Turn {
	args, _ := json.Marshal(map[string]any{"name": planName, "step": step, "status": status})
	return plantest.CallTool(plan.ToolUpdatePlanStep, string(args))
}
