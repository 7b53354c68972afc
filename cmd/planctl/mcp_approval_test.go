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

// elicitor is a client's elicitation handler that records each question and answers it.
type elicitor struct {
	asked atomic.Int32
	last  atomic.Value // the last question's message
}

func (e *elicitor) options(answer sdk.ElicitResult) *sdk.ClientOptions {
	return &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		e.asked.Add(1)
		e.last.Store(req.Params.Message)
		return &answer, nil
	}}
}

// With -ask-client, request_plan_approval puts the plan to the person through the client
// on every protocol version the SDK negotiates (an elicitation request before 2026-07-28,
// an input-required result the client answers under it): their approval is the same sealed
// approval, naming how it was reached; a declined or cancelled question leaves the plan
// waiting; without -ask-client nobody is asked; and an answer the client makes up without
// being asked approves nothing.
func TestMCPAskClientApprovesThroughElicitation(t *testing.T) {
	for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx := context.Background()
			dir := filepath.Join(t.TempDir(), "plans")
			session := &sdk.ClientSessionOptions{ProtocolVersion: version}
			connect := func(name string, e *elicitor, answer sdk.ElicitResult, flags ...string) *sdk.ClientSession {
				cs := mcpSession(t, name, e.options(answer), session, append([]string{"-dir", dir, "mcp", "-approval"}, flags...)...)
				require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
				return cs
			}
			waiting := func(name string) *plan.Plan {
				p, err := agentStore(t, dir, "host").Get(ctx, name)
				require.NoError(t, err)
				assert.Nil(t, p.Approval, "%s is not approved", name)
				assert.NotNil(t, p.Waiting, "%s waits for a person", name)
				return p
			}
			accept := sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}

			for _, answer := range []string{"decline", "cancel"} {
				var e elicitor
				bob := connect("bob", &e, sdk.ElicitResult{Action: answer}, "-ask-client")
				toolOK(t, bob, "write_plan", map[string]any{"name": "deploy", "content": "- [ ] ship it\n"})
				out := toolOK(t, bob, "request_plan_approval", map[string]any{"name": "deploy"})
				assert.Equal(t, false, out["approved"], answer)
				assert.EqualValues(t, 1, e.asked.Load(), "the person was asked")
				waiting("deploy")
			}

			var yes elicitor
			alice := connect("alice", &yes, accept, "-ask-client")
			approved := toolOK(t, alice, "request_plan_approval", map[string]any{"name": "deploy", "message": "ready"})
			assert.Equal(t, true, approved["approved"])
			assert.EqualValues(t, 1, yes.asked.Load())
			assert.Contains(t, yes.last.Load(), "alice asks you to approve plan \"deploy\"")
			assert.Contains(t, yes.last.Load(), "- [ ] ship it")
			p, err := agentStore(t, dir, "host").Get(ctx, "deploy")
			require.NoError(t, err)
			require.NotNil(t, p.Approval, "a sealed approval the Store verifies")
			assert.Contains(t, p.Approval.By, "via MCP client alice")
			history, err := agentStore(t, dir, "host").History(ctx, "deploy")
			require.NoError(t, err)
			assert.Contains(t, history[0].Author, "via MCP client alice", "the history names how it was reached")

			// Without -ask-client the same client is never asked.
			var unasked elicitor
			plain := connect("alice", &unasked, accept)
			toolOK(t, plain, "write_plan", map[string]any{"name": "other", "content": "- [ ] a\n"})
			out := toolOK(t, plain, "request_plan_approval", map[string]any{"name": "other"})
			assert.Equal(t, false, out["approved"])
			assert.Zero(t, unasked.asked.Load())
			waiting("other")

			// An answer to no question of this server's approves nothing, and is not asked.
			var forger elicitor
			mallory := connect("mallory", &forger, accept, "-ask-client")
			for _, state := range []string{"", "00112233445566778899aabbccddeeff"} {
				res, err := mallory.CallTool(ctx, &sdk.CallToolParams{Name: "request_plan_approval", Arguments: map[string]any{"name": "other"},
					InputResponses: sdk.InputResponseMap{"approval": &accept}, RequestState: state})
				require.NoError(t, err)
				require.False(t, res.IsError)
				assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, `"approved":false`)
			}
			assert.Zero(t, forger.asked.Load())
			waiting("other")
		})
	}
}
