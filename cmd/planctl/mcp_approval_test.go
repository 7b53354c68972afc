//go:build unix

package main

import (
	"context"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// deployTool is a side effect an Eino agent may run only under an approved step naming it.
type deployTool struct{ ran atomic.Int32 }

func (d *deployTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "deploy_prod", Desc: "Deploy to production."}, nil
}

func (d *deployTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	d.ran.Add(1)
	return "deployed", nil
}

// gatedRun runs an Eino agent with deploy_prod gated on the plans in dir: it takes step 1
// of plan deploy and deploys. It returns how often deploy_prod ran.
func gatedRun(t *testing.T, dir string) int32 {
	t.Helper()
	ctx := context.Background()
	backend, err := plan.NewLocalBackend(filepath.Dir(dir))
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "ops", GatedTools: []string{"deploy_prod"}})
	require.NoError(t, err)
	deploy := &deployTool{}
	model := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"deploy","step":1,"status":"in_progress"}`),
		plantest.CallTool("deploy_prod", `{}`),
		plantest.Answer("done"))
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "ops", Description: "deploys", Instruction: "Deploy.",
		Model: model, Handlers: []adk.ChatModelAgentMiddleware{mw},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{deploy}}}})
	require.NoError(t, err)
	plantest.RunAgent(t, ctx, agent, "deploy")
	return deploy.ran.Load()
}

// Plan mode over MCP: request_plan_approval returns at once and leaves the plan waiting,
// no MCP tool approves, steps do not move and an Eino agent's gated tool does not run under
// a plan an MCP client asked about; once a person approves with planctl, the gated tool
// runs under the step and steps move again.
func TestMCPPlanModeLeavesTheDecisionToAPerson(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	alice := mcpSession(t, "alice", nil, nil, "-dir", dir, "mcp", "-approval", "-lang", "en")
	ctx := context.Background()
	list, err := alice.ListTools(ctx, nil)
	require.NoError(t, err)
	for _, tl := range list.Tools {
		assert.NotContains(t, []string{"approve", "approve_plan", "set_approval"}, tl.Name)
	}

	toolOK(t, alice, "write_plan", map[string]any{"name": "deploy", "content": "- [ ] ship it (uses deploy_prod)\n"})
	code, _ := toolError(t, alice, "update_plan_step", map[string]any{"name": "deploy", "step": 1, "status": "in_progress"})
	assert.Equal(t, "not_approved", code)
	asked := toolOK(t, alice, "request_plan_approval", map[string]any{"name": "deploy", "message": "ship?"})
	assert.Equal(t, false, asked["approved"])
	assert.Contains(t, asked["next"], "Waiting for a person")
	p, err := agentStore(t, dir, "host").Get(ctx, "deploy")
	require.NoError(t, err)
	require.NotNil(t, p.Waiting, "the plan waits for a person")
	assert.Equal(t, "alice", p.Waiting.Agent)
	assert.Nil(t, p.Approval)

	// Writing the plan again, or setting its status, approves nothing either.
	toolOK(t, alice, "set_plan_status", map[string]any{"name": "deploy", "status": "approved"})
	assert.Zero(t, gatedRun(t, dir), "no gated tool runs under a plan only an MCP client asked about")

	p, err = agentStore(t, dir, "host").Get(ctx, "deploy")
	require.NoError(t, err)
	r := planctl(t, "-dir", dir, "approve", "deploy", "-rev", strconv.FormatInt(p.Revision, 10), "-by", "dana")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.EqualValues(t, 1, gatedRun(t, dir), "approved by a person, the step unlocks the tool")
	code, msg := toolError(t, alice, "update_plan_step", map[string]any{"name": "deploy", "step": 1, "status": "in_progress"})
	assert.Equal(t, "step_held", code, "steps move again, and the agent that took it holds it")
	assert.Contains(t, msg, "ops")
}

// With -ask-client, request_plan_approval puts the plan to the person through the client
// (MCP elicitation): their approval is the same sealed approval, naming how it was reached;
// a client that declines leaves the plan waiting.
func TestMCPAskClientApprovesThroughElicitation(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	legacy := &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	var asked atomic.Value
	yes := &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Store(req.Params.Message)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}}
	no := &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		return &sdk.ElicitResult{Action: "decline"}, nil
	}}
	bob := mcpSession(t, "bob", no, legacy, "-dir", dir, "mcp", "-approval", "-ask-client")
	toolOK(t, bob, "write_plan", map[string]any{"name": "deploy", "content": "- [ ] ship it\n"})
	declined := toolOK(t, bob, "request_plan_approval", map[string]any{"name": "deploy"})
	assert.Equal(t, false, declined["approved"])

	alice := mcpSession(t, "alice", yes, legacy, "-dir", dir, "mcp", "-approval", "-ask-client")
	approved := toolOK(t, alice, "request_plan_approval", map[string]any{"name": "deploy", "message": "ready"})
	assert.Equal(t, true, approved["approved"])
	assert.Contains(t, asked.Load(), "alice asks you to approve plan \"deploy\"")
	assert.Contains(t, asked.Load(), "- [ ] ship it")
	p, err := agentStore(t, dir, "host").Get(context.Background(), "deploy")
	require.NoError(t, err)
	require.NotNil(t, p.Approval, "a sealed approval the Store verifies")
	assert.Contains(t, p.Approval.By, "via MCP client alice")

	// Without -ask-client the same client is never asked.
	asked.Store("")
	toolOK(t, alice, "write_plan", map[string]any{"name": "other", "content": "- [ ] a\n"})
	plain := mcpSession(t, "alice", yes, legacy, "-dir", dir, "mcp", "-approval")
	out := toolOK(t, plain, "request_plan_approval", map[string]any{"name": "other"})
	assert.Equal(t, false, out["approved"])
	assert.Equal(t, "", asked.Load())
}
