package plan_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

func drain(t *testing.T, iter *adk.AsyncIterator[*adk.AgentEvent]) []*adk.AgentEvent {
	t.Helper()
	var events []*adk.AgentEvent
	for {
		ev, ok := iter.Next()
		if !ok {
			return events
		}
		require.NoError(t, ev.Err)
		events = append(events, ev)
	}
}

const subPlanBody = "# Ship\n- [ ] build\n- [ ] test\n"

// orchestratorThenWorker scripts one model shared by a deep agent and its general-purpose
// sub-agent: the main agent gets the template, writes a plan and delegates; the sub-agent
// tries plan_template, then reads the plan and marks a step.
func orchestratorThenWorker(delegate plantest.Turn) *plantest.ScriptedModel {
	return plantest.NewScriptedModel(
		plantest.CallTool("plan_template", `{"goal":"ship it"}`),
		plantest.CallTool("write_plan", `{"name":"ship","content":`+quote(subPlanBody)+`,"last_known_revision":0}`),
		delegate,
		plantest.CallTool("plan_template", `{"goal":"my own plan"}`),
		plantest.CallTool("read_plan", `{"name":"ship"}`),
		plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"completed"}`),
		plantest.Answer("worker done"),
		plantest.Answer("all done"),
	)
}

// assertRoles checks what each model call saw and what each plan_template call returned.
func assertRoles(t *testing.T, m *plantest.ScriptedModel, backend plan.Backend) {
	t.Helper()
	calls := m.Calls()
	require.Len(t, calls, 8)
	for i, c := range calls {
		sub := i >= 3 && i <= 6
		assert.Equal(t, !sub, slices.Contains(c.ToolNames(), "plan_template"), "call %d tools %v", i, c.ToolNames())
		assert.Contains(t, c.ToolNames(), "read_plan", "call %d", i)
		system := c.Input[0]
		require.Equal(t, schema.System, system.Role)
		assert.Equal(t, !sub, strings.Contains(system.Content, "plan_template"), "call %d instruction", i)
	}
	// The main agent's template call (result seen in call 1) succeeded.
	tmpl := lastToolResult(calls[1])
	assert.Contains(t, tmpl, "## Steps")
	assert.Contains(t, tmpl, "ship it")
	assert.Contains(t, tmpl, "last_known_revision 0")
	// The sub-agent's call (result seen in call 4) was refused, and its run went on.
	assert.Equal(t, "tool_not_available", errorCode(t, lastToolResult(calls[4])))
	assert.Contains(t, lastToolResult(calls[5]), `"name":"ship"`, "the sub-agent reads the orchestrator's plan")
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	p, err := store.Get(context.Background(), "ship")
	require.NoError(t, err)
	assert.EqualValues(t, 2, p.Revision)
	assert.Equal(t, 1, p.Summarize().Progress.Completed)
}

func lastToolResult(c plantest.Call) string {
	for i := len(c.Input) - 1; i >= 0; i-- {
		if c.Input[i].Role == schema.Tool {
			return c.Input[i].Content
		}
	}
	return ""
}

func TestRoleAutoWithDeepAgent(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	m := orchestratorThenWorker(plantest.CallTool("task", `{"subagent_type":"general-purpose","description":"Do step 1 of plan ship"}`))
	agent, err := deep.New(ctx, &deep.Config{Name: "main", Description: "orchestrator", ChatModel: m,
		Handlers: []adk.ChatModelAgentMiddleware{mw}, WithoutWriteTodos: true, MaxIteration: 20})
	require.NoError(t, err)
	events := drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "ship it"))
	require.NotEmpty(t, events)
	assertRoles(t, m, backend)
}

func newWorker(t *testing.T, ctx context.Context, m *plantest.ScriptedModel, mw adk.ChatModelAgentMiddleware) adk.Agent {
	t.Helper()
	worker, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "does one step",
		Instruction: "You execute steps.", Model: m, Handlers: []adk.ChatModelAgentMiddleware{mw}})
	require.NoError(t, err)
	return worker
}

func TestRolesWithAgentTool(t *testing.T) {
	for _, tc := range []struct {
		name              string
		mainRole, subRole plan.Role
	}{
		{"auto", plan.RoleAuto, plan.RoleAuto},
		{"explicit", plan.RoleOrchestrator, plan.RoleSubAgent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			backend := plan.NewMemoryBackend()
			mainMW, err := plan.New(ctx, &plan.Config{Backend: backend, Role: tc.mainRole})
			require.NoError(t, err)
			subMW := mainMW
			if tc.subRole != tc.mainRole {
				subMW, err = plan.New(ctx, &plan.Config{Backend: backend, Role: tc.subRole})
				require.NoError(t, err)
			}
			m := orchestratorThenWorker(plantest.CallTool("worker", `{"request":"Do step 1 of plan ship"}`))
			workerTool := adk.NewAgentTool(ctx, newWorker(t, ctx, m, subMW))
			main, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "main", Description: "orchestrator",
				Instruction: "You plan.", Model: m, Handlers: []adk.ChatModelAgentMiddleware{mainMW},
				ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: toolsNode(workerTool)}})
			require.NoError(t, err)
			drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: main}).Query(ctx, "ship it"))
			assertRoles(t, m, backend)
		})
	}
}

func TestExplicitSubAgentRoleAtTopLevel(t *testing.T) {
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Role: plan.RoleSubAgent})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(plantest.CallTool("plan_template", `{"goal":"x"}`))
	results := toolResults(runAgent(t, m, mw))
	require.Len(t, results, 1)
	assert.Equal(t, "tool_not_available", errorCode(t, results[0]))
	assert.NotContains(t, m.Calls()[0].ToolNames(), "plan_template")
}

func TestPlanTemplateArguments(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, Template: "CUSTOM GUIDE"})
	require.NoError(t, err)
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = store.Put(ctx, plan.Update{Name: "existing-one", Content: ptrTo("x")})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(
		plantest.CallTool("plan_template", `{"goal":""}`),
		plantest.CallTool("plan_template", `{"goal":"`+strings.Repeat("g", 4097)+`"}`),
		plantest.CallTool("plan_template", `{"goal":"launch"}`),
		plantest.CallTool("plan_template", "{\"goal\":\"bad \xff\"}"),
	)
	results := toolResults(runAgent(t, m, mw))
	require.Len(t, results, 4)
	assert.Equal(t, "invalid_argument", errorCode(t, results[3]), "invalid UTF-8 is not echoed back")
	assert.Equal(t, "invalid_argument", errorCode(t, results[0]))
	assert.Equal(t, "invalid_argument", errorCode(t, results[1]))
	assert.True(t, strings.HasPrefix(results[2], "CUSTOM GUIDE"), results[2])
	assert.Contains(t, results[2], "existing-one")
	assert.Contains(t, results[2], "launch")
	listing, err := store.List(ctx)
	require.NoError(t, err)
	assert.Len(t, listing.Plans, 1, "plan_template creates nothing")
}

func ptrTo[T any](v T) *T { return &v }

func toolsNode(tools ...tool.BaseTool) compose.ToolsNodeConfig {
	return compose.ToolsNodeConfig{Tools: tools}
}

// A sub-agent started by a tool call that has no ID (as some OpenAI-compatible providers send)
// still runs as a sub-agent: it gets no plan_template.
func TestSubAgentCalledWithoutAToolCallIDIsASubAgent(t *testing.T) {
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
