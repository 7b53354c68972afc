package plan_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/filesystem"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/plantest"
)

// runAgent runs a ChatModelAgent with the given handlers and model to completion and
// returns its events; any error event fails the test.
func runAgent(t *testing.T, m *plantest.ScriptedModel, handlers ...adk.ChatModelAgentMiddleware) []*adk.AgentEvent {
	t.Helper()
	ctx := context.Background()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "planner", Description: "plans", Instruction: "You plan.", Model: m,
		Handlers: handlers, MaxIterations: 100,
	})
	require.NoError(t, err)
	return drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go"))
}

// toolResults maps each tool call ID of the run to its result text.
func toolResults(events []*adk.AgentEvent) []string {
	var out []string
	for _, ev := range events {
		if ev.Output == nil || ev.Output.MessageOutput == nil {
			continue
		}
		msg := ev.Output.MessageOutput.Message
		if msg != nil && msg.Role == schema.Tool {
			out = append(out, msg.Content)
		}
	}
	return out
}

func errorCode(t *testing.T, result string) string {
	t.Helper()
	var r errorOut
	require.NoError(t, sonic.UnmarshalString(result, &r), result)
	if r.Error == nil {
		return ""
	}
	require.NotEmpty(t, r.Error.Message)
	return string(r.Error.Code)
}

type backendCase struct {
	name string
	new  func(t *testing.T) (plan.Backend, driver.Workspace)
}

func backendCases() []backendCase {
	return []backendCase{
		{"memory", func(t *testing.T) (plan.Backend, driver.Workspace) {
			return plan.NewMemoryBackend(), plan.NewMemoryBackend()
		}},
		{"local", func(t *testing.T) (plan.Backend, driver.Workspace) {
			return newLocal(t, t.TempDir()), newLocal(t, t.TempDir())
		}},
	}
}

// An agent can call every tool, on every kind of Backend, and each call answers as it should:
// results for valid calls, the right error code for each kind of bad call.
func TestAgentRunsEveryTool(t *testing.T) {
	for _, bc := range backendCases() {
		t.Run(bc.name, func(t *testing.T) {
			backend, ws := bc.new(t)
			mw, err := plan.New(context.Background(), &plan.Config{Backend: backend, Workspace: ws, AgentName: "planner"})
			require.NoError(t, err)
			body := "# Release\n- [ ] changelog\n- [ ] preflight\n"
			calls := []struct {
				tool, args, wantCode string
			}{
				{"write_plan", `{"name":"release","content":` + quote(body) + `,"last_known_revision":0}`, ""},
				{"write_plan", `{"name":"release","content":"x","last_known_revision":0}`, "revision_conflict"},
				{"write_plan", `{"name":"../x","content":"x"}`, "invalid_argument"},
				{"write_plan", `{"name":"Plan","content":"x"}`, "invalid_argument"},
				{"write_plan", `{"name":"ok","content":""}`, "invalid_argument"},
				{"write_plan", `{"name":"ok","content":"x","last_known_revision":"one"}`, "invalid_argument"},
				{"write_plan", `{"name":"ok","content":"x","last_known_revision":-2}`, "invalid_argument"},
				{"write_plan", `not json`, "invalid_argument"},
				{"write_plan", `["name"]`, "invalid_argument"},
				{"read_plan", `{"name":"release","extra":true}`, "invalid_argument"},
				{"read_plan", `{"name":"missing"}`, "not_found"},
				{"set_plan_status", `{"name":"release","status":"in-progress","last_known_revision":1}`, ""},
				{"set_plan_status", `{"name":"release","status":"stale","last_known_revision":1}`, "revision_conflict"},
				{"set_plan_status", `{"name":"nope","status":"x"}`, "not_found"},
				{"set_plan_status", `{"name":"release","status":""}`, "invalid_argument"},
				{"get_plan_status", `{"name":"release"}`, ""},
				{"update_plan_step", `{"name":"release","step":1,"status":"completed","note":"PR 12"}`, ""},
				{"update_plan_step", `{"name":"release","step":1,"status":"pending"}`, "illegal_transition"},
				{"update_plan_step", `{"name":"release","step":9,"status":"completed"}`, "invalid_argument"},
				{"update_plan_step", `{"name":"release","step":2,"status":"bogus"}`, "invalid_argument"},
				{"export_plan_to_file", `{"name":"release","path":"/work/release.md"}`, ""},
				{"export_plan_to_file", `{"name":"release","path":"../../etc/passwd"}`, "invalid_argument"},
				{"update_plan_from_file", `{"name":"release","path":"/work/missing.md"}`, "not_found"},
				{"update_plan_from_file", `{"name":"release","path":"/work/release.md","status":"reviewed","last_known_revision":3}`, ""},
				{"list_plans", `{}`, ""},
				{"delete_plan", `{"name":"release","last_known_revision":1}`, "revision_conflict"},
				{"write_plan", `{"name":"scratch","content":"tmp"}`, ""},
				{"delete_plan", `{"name":"scratch"}`, ""},
				{"delete_plan", `{"name":"scratch"}`, "not_found"},
				{"no_such_tool_name_is_registered_here_is_fine_to_skip", "", "skip"},
			}
			var turns []plantest.Turn
			var want []string
			for _, c := range calls {
				if c.wantCode == "skip" {
					continue
				}
				turns = append(turns, plantest.CallTool(c.tool, c.args))
				want = append(want, c.tool+" "+c.args+" → "+c.wantCode)
			}
			m := plantest.NewScriptedModel(turns...)
			results := toolResults(runAgent(t, m, mw))
			require.Len(t, results, len(want))
			for i, r := range results {
				assert.Equal(t, strings.SplitN(want[i], " → ", 2)[1], errorCode(t, r), "%s\nresult: %s", want[i], r)
			}

			store := storeOn(t, backend, "")
			listing, err := store.ListPage(context.Background(), plan.ListOptions{})
			require.NoError(t, err)
			require.Len(t, listing.Plans, 1, "only release remains")
			p, err := store.Get(context.Background(), "release")
			require.NoError(t, err)
			assert.EqualValues(t, 4, p.Revision)
			assert.Equal(t, "reviewed", p.Status)
			assert.Equal(t, "planner", p.Author)
			assert.Equal(t, "# Release\n- [x] changelog — PR 12\n- [ ] preflight\n", p.Content)
		})
	}
}

func quote(s string) string {
	b, _ := sonic.MarshalString(s)
	return b
}

// New refuses a missing config, a missing Backend and a BaseDir that is not a clean folder
// path.
func TestNewRejectsBadConfig(t *testing.T) {
	ctx := context.Background()
	_, err := plan.New(ctx, nil)
	require.Error(t, err)
	_, err = plan.New(ctx, &plan.Config{})
	require.ErrorContains(t, err, "Backend")
	for _, dir := range []string{"../plans", "/plans/../x", "plans\x00", "a/..", "\xff"} {
		_, err = plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), BaseDir: dir})
		require.Error(t, err, dir)
	}
	_, err = plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), BaseDir: "/team/plans/"})
	require.NoError(t, err)
}

// beforeAgentTools runs BeforeAgent and returns the invokable tools it added, by name.
func beforeAgentTools(t *testing.T, ctx context.Context, mw adk.ChatModelAgentMiddleware) (context.Context, *adk.ChatModelAgentContext, map[string]tool.InvokableTool) {
	t.Helper()
	ctx, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{Instruction: "base"})
	require.NoError(t, err)
	out := map[string]tool.InvokableTool{}
	for _, bt := range rc.Tools {
		info, err := bt.Info(ctx)
		require.NoError(t, err)
		out[info.Name] = bt.(tool.InvokableTool)
	}
	return ctx, rc, out
}

// Guarded increments through the tools of two middlewares on one Backend, all at once, lose no
// update.
func TestConcurrentGuardedIncrementsThroughTwoMiddlewares(t *testing.T) {
	backend := plan.NewMemoryBackend()
	ctx := context.Background()
	var toolsets []map[string]tool.InvokableTool
	for i := 0; i < 2; i++ {
		mw, err := plan.New(ctx, &plan.Config{Backend: backend})
		require.NoError(t, err)
		_, _, tools := beforeAgentTools(t, ctx, mw)
		toolsets = append(toolsets, tools)
	}
	_, err := toolsets[0]["write_plan"].InvokableRun(ctx, `{"name":"counter","content":"0"}`)
	require.NoError(t, err)

	const workers, each = 16, 50
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		tools := toolsets[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < each; {
				out, err := tools["read_plan"].InvokableRun(ctx, `{"name":"counter"}`)
				if !assert.NoError(t, err) {
					return
				}
				var p struct {
					Revision int64  `json:"revision"`
					Content  string `json:"content"`
				}
				if !assert.NoError(t, sonic.UnmarshalString(out, &p)) {
					return
				}
				var v int
				fmt.Sscan(p.Content, &v)
				args := fmt.Sprintf(`{"name":"counter","content":"%d","last_known_revision":%d}`, v+1, p.Revision)
				out, err = tools["write_plan"].InvokableRun(ctx, args)
				if !assert.NoError(t, err) {
					return
				}
				switch code := errorCode(t, out); code {
				case "":
					done++
				case "revision_conflict":
				default:
					t.Errorf("unexpected result %s", out)
					return
				}
			}
		}()
	}
	wg.Wait()
	store := storeOn(t, backend, "")
	p, err := store.Get(ctx, "counter")
	require.NoError(t, err)
	require.EqualValues(t, 1+workers*each, p.Revision)
	require.Equal(t, fmt.Sprint(workers*each), p.Content)
}

// Two plan middlewares on one agent with different explicit roles each keep their own:
// RoleOrchestrator's plan_template is shown and works, RoleSubAgent's is hidden, and the
// instruction matches the tools shown.
func TestTwoMiddlewaresKeepTheirOwnRoles(t *testing.T) {
	ctx := context.Background()
	teamMW, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Role: plan.RoleOrchestrator})
	require.NoError(t, err)
	mineMW, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), ToolNames: personalNames(), Role: plan.RoleSubAgent})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("plan_template", `{"goal":"ship"}`),
		plantest.Answer("done"),
	)
	results := toolResults(runAgent(t, model, teamMW, mineMW))
	require.Len(t, results, 1)
	assert.NotContains(t, results[0], `"error"`, results[0])
	names := map[string]bool{}
	for _, info := range model.Calls()[0].Tools {
		names[info.Name] = true
	}
	assert.True(t, names["plan_template"], "RoleOrchestrator's plan_template is shown")
	assert.False(t, names["my_plan_template"], "RoleSubAgent's is hidden")
	assert.Contains(t, model.Calls()[0].Input[0].Content, "call plan_template first")
}

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
	store := storeOn(t, backend, "")
	p, err := store.Get(context.Background(), "ship")
	require.NoError(t, err)
	assert.EqualValues(t, 2, p.Revision)
	assert.Equal(t, 1, plan.Summarize(p).Progress.Completed)
}

func lastToolResult(c plantest.Call) string {
	for i := len(c.Input) - 1; i >= 0; i-- {
		if c.Input[i].Role == schema.Tool {
			return c.Input[i].Content
		}
	}
	return ""
}

// With RoleAuto under a deep agent, the orchestrator gets plan_template and its instruction,
// the sub-agent started by the task tool does not, and both share the plans.
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

// runThroughAgentTool runs m as an orchestrator under mainMW that hands the work to
// newWorker's agent, under subMW, through an agent tool named "worker".
func runThroughAgentTool(t *testing.T, ctx context.Context, m *plantest.ScriptedModel, mainMW, subMW adk.ChatModelAgentMiddleware) {
	t.Helper()
	workerTool := adk.NewAgentTool(ctx, newWorker(t, ctx, m, subMW))
	main, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "main", Description: "orchestrator",
		Instruction: "You plan.", Model: m, Handlers: []adk.ChatModelAgentMiddleware{mainMW},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: toolsNode(workerTool)}})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: main}).Query(ctx, "ship it"))
}

func newWorker(t *testing.T, ctx context.Context, m *plantest.ScriptedModel, mw adk.ChatModelAgentMiddleware) adk.Agent {
	t.Helper()
	worker, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "does one step",
		Instruction: "You execute steps.", Model: m, Handlers: []adk.ChatModelAgentMiddleware{mw}})
	require.NoError(t, err)
	return worker
}

// With an agent tool, automatic and explicit roles give the orchestrator plan_template and the
// sub-agent none.
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
			runThroughAgentTool(t, ctx, m, mainMW, subMW)
			assertRoles(t, m, backend)
		})
	}
}

// RoleSubAgent holds at the top level: plan_template is neither shown nor callable.
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

// plan_template refuses an empty, oversized or non-UTF-8 goal, and otherwise returns the
// configured guide with the goal and the plans that exist; it creates nothing.
func TestPlanTemplateArguments(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, Template: "CUSTOM GUIDE"})
	require.NoError(t, err)
	store := storeOn(t, backend, "")
	_, err = store.Put(ctx, plan.Update{Name: "existing-one", Content: ptr("x")})
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
	listing, err := store.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, listing.Plans, 1, "plan_template creates nothing")
}

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
	runThroughAgentTool(t, ctx, m, mw, mw)
	assertRoles(t, m, backend)
}

// TestSubAgentChangeEvents pins down where a sub-agent's changes show up: its events reach
// the parent runner's iterator through deep's task tool only when the parent's ToolsConfig
// sets EmitInternalEvents, while Config.OnChange sees every change either way.
func TestSubAgentChangeEvents(t *testing.T) {
	for _, forward := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "EmitInternalEvents"}[forward], func(t *testing.T) {
			ctx := context.Background()
			backend := plan.NewMemoryBackend()
			var mu sync.Mutex
			var hosted []plan.Change
			onChange := func(_ context.Context, c plan.Change) {
				mu.Lock()
				hosted = append(hosted, c)
				mu.Unlock()
			}
			mainMW, err := plan.New(ctx, &plan.Config{Backend: backend, OnChange: onChange})
			require.NoError(t, err)
			workerMW, err := plan.New(ctx, &plan.Config{Backend: backend, OnChange: onChange})
			require.NoError(t, err)
			worker := newWorker(t, ctx, plantest.NewScriptedModel(
				plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"completed"}`),
				plantest.Answer("step 1 done"),
			), workerMW)
			main, err := deep.New(ctx, &deep.Config{Name: "main", Description: "orchestrator",
				ChatModel: plantest.NewScriptedModel(
					plantest.CallTool("write_plan", `{"name":"ship","content":`+quote(subPlanBody)+`}`),
					plantest.CallTool("task", `{"subagent_type":"worker","description":"Do step 1 of plan ship"}`),
					plantest.Answer("all done"),
				),
				SubAgents: []adk.Agent{worker}, Handlers: []adk.ChatModelAgentMiddleware{mainMW},
				ToolsConfig:       adk.ToolsConfig{EmitInternalEvents: forward},
				WithoutWriteTodos: true, WithoutGeneralSubAgent: true, MaxIteration: 10})
			require.NoError(t, err)

			var streamed []plan.Change
			for _, ev := range drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: main}).Query(ctx, "ship it")) {
				if ev.Output != nil {
					if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok {
						streamed = append(streamed, c)
					}
				}
			}
			require.Len(t, hosted, 2)
			assert.Equal(t, plan.ActionWrite, hosted[0].Action)
			assert.Equal(t, plan.ActionStep, hosted[1].Action)
			assert.Equal(t, 1, hosted[1].Progress.Completed)
			if forward {
				assert.Equal(t, hosted, streamed, "the worker's change reaches the parent iterator")
			} else {
				assert.Equal(t, hosted[:1], streamed, "only the orchestrator's own change is in its iterator")
			}
		})
	}
}

// agenticScript is a scripted model on *schema.AgenticMessage: it calls write_plan with a
// bad name, then with a good one, then answers.
type agenticScript struct {
	mu      sync.Mutex
	calls   int
	tools   [][]string
	results []string
}

func (m *agenticScript) Generate(_ context.Context, in []*schema.AgenticMessage, opts ...model.Option) (*schema.AgenticMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for _, ti := range model.GetCommonOptions(nil, opts...).Tools {
		names = append(names, ti.Name)
	}
	m.tools = append(m.tools, names)
	m.results = m.results[:0]
	for _, msg := range in {
		for _, b := range msg.ContentBlocks {
			if b.FunctionToolResult != nil {
				for _, c := range b.FunctionToolResult.Content {
					if c.Text != nil {
						m.results = append(m.results, c.Text.Text)
					}
				}
			}
		}
	}
	m.calls++
	call := func(args string) *schema.AgenticMessage {
		return &schema.AgenticMessage{Role: schema.AgenticRoleTypeAssistant, ContentBlocks: []*schema.ContentBlock{
			schema.NewContentBlock(&schema.FunctionToolCall{CallID: "c" + args[:3], Name: "write_plan", Arguments: args}),
		}}
	}
	switch m.calls {
	case 1:
		return call(`{"name":"Bad Name","content":"x"}`), nil
	case 2:
		return call(`{"name":"agentic","content":"- [ ] one\n"}`), nil
	}
	return &schema.AgenticMessage{Role: schema.AgenticRoleTypeAssistant, ContentBlocks: []*schema.ContentBlock{
		schema.NewContentBlock(&schema.AssistantGenText{Text: "done"}),
	}}, nil
}

func (m *agenticScript) Stream(ctx context.Context, in []*schema.AgenticMessage, opts ...model.Option) (*schema.StreamReader[*schema.AgenticMessage], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.AgenticMessage{msg}), nil
}

// NewTyped works with agentic messages: the tools run and their changes are reported as
// events.
func TestNewTypedWithAgenticMessages(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.NewTyped[*schema.AgenticMessage](ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	m := &agenticScript{}
	agent, err := adk.NewTypedChatModelAgent(ctx, &adk.TypedChatModelAgentConfig[*schema.AgenticMessage]{
		Name: "agentic", Description: "agentic planner", Instruction: "plan", Model: m,
		Handlers: []adk.TypedChatModelAgentMiddleware[*schema.AgenticMessage]{mw},
	})
	require.NoError(t, err)
	runner := adk.NewTypedRunner(adk.TypedRunnerConfig[*schema.AgenticMessage]{Agent: agent})
	iter := runner.Run(ctx, []*schema.AgenticMessage{schema.UserAgenticMessage("plan it")})
	var changes []plan.Change
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		require.NoError(t, ev.Err)
		if ev.Output != nil {
			if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok {
				changes = append(changes, c)
			}
		}
	}
	require.Equal(t, 3, m.calls)
	assert.Contains(t, m.tools[0], "write_plan")
	require.Len(t, m.results, 2)
	assert.Equal(t, "invalid_argument", errorCode(t, m.results[0]))
	assert.Equal(t, "", errorCode(t, m.results[1]))
	require.Len(t, changes, 1, "the typed middleware emits change events of its own message type")
	assert.Equal(t, "agentic", changes[0].Name)
	store := storeOn(t, backend, "")
	p, err := store.Get(ctx, "agentic")
	require.NoError(t, err)
	assert.Equal(t, "- [ ] one\n", p.Content)
}

// personalNames renames every plan tool with a "my_" prefix.
func personalNames() map[string]string {
	names := map[string]string{}
	for _, n := range []string{plan.ToolWritePlan, plan.ToolReadPlan, plan.ToolListPlans, plan.ToolDeletePlan,
		plan.ToolSetPlanStatus, plan.ToolGetPlanStatus, plan.ToolUpdatePlanStep, plan.ToolPlanTemplate} {
		names[n] = "my_" + n
	}
	return names
}

// TestTwoPlanMiddlewaresOnOneAgent: team plans and personal plans on one agent, each under
// its own tool names, each call landing in its own storage.
func TestTwoPlanMiddlewaresOnOneAgent(t *testing.T) {
	ctx := context.Background()
	team, personal := plan.NewMemoryBackend(), plan.NewMemoryBackend()
	teamMW, err := plan.New(ctx, &plan.Config{Backend: team})
	require.NoError(t, err)
	mineMW, err := plan.New(ctx, &plan.Config{Backend: personal, ToolNames: personalNames()})
	require.NoError(t, err)

	model := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"release","content":"- [ ] ship\n"}`),
		plantest.CallTool("my_write_plan", `{"name":"notes","content":"- [ ] read\n"}`),
		plantest.CallTool("my_plan_template", `{"goal":"learn"}`),
		plantest.CallTool("plan_template", `{"goal":"ship"}`),
		plantest.Answer("done"),
	)
	results := toolResults(runAgent(t, model, teamMW, mineMW))
	require.Len(t, results, 4)
	for _, r := range results[:2] {
		assert.Empty(t, errorCode(t, r), r)
	}
	for _, r := range results[2:] {
		assert.NotContains(t, r, `"error"`)
	}
	assert.Contains(t, results[2], "my_write_plan", "the template names the renamed tools")
	assert.NotContains(t, results[2], " write_plan")

	teamStore, _ := plan.NewStore(&plan.StoreConfig{Backend: team})
	mineStore, _ := plan.NewStore(&plan.StoreConfig{Backend: personal})
	_, err = teamStore.Get(ctx, "release")
	assert.NoError(t, err)
	_, err = teamStore.Get(ctx, "notes")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
	_, err = mineStore.Get(ctx, "notes")
	assert.NoError(t, err)

	calls := model.Calls()
	require.NotEmpty(t, calls)
	names := map[string]int{}
	for _, info := range calls[0].Tools {
		names[info.Name]++
	}
	assert.Equal(t, 1, names["write_plan"])
	assert.Equal(t, 1, names["my_write_plan"])
	assert.Equal(t, 1, names["plan_template"], "both templates stay: the agent is the orchestrator for both")
	assert.Equal(t, 1, names["my_plan_template"])
	sys := calls[0].Input[0].Content
	assert.Contains(t, sys, "my_list_plans first", "the second instruction names its own tools")
}

// TestDuplicateToolNamesAreRefused: two plan middlewares under the same names fail the run
// at its start with an error that says what to do, instead of silently shadowing each other.
func TestDuplicateToolNamesAreRefused(t *testing.T) {
	ctx := context.Background()
	a, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	b, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
		Model: plantest.NewScriptedModel(plantest.Answer("x")), Handlers: []adk.ChatModelAgentMiddleware{a, b}})
	require.NoError(t, err)
	_, runErr := seamRun(ctx, agent)
	require.Error(t, runErr)
	assert.Contains(t, runErr.Error(), `two tools named "write_plan"`)
	assert.Contains(t, runErr.Error(), "ToolNames")

	for _, bad := range []map[string]string{{"write_plan": "read_plan"}, {"nope": "x"}, {"write_plan": "a b"}} {
		_, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), ToolNames: bad})
		assert.Error(t, err, "%v", bad)
	}
}

// seamRun runs agent to its end and returns its events and the first error event's error.
func seamRun(ctx context.Context, agent adk.Agent, msgs ...adk.Message) ([]*adk.AgentEvent, error) {
	if len(msgs) == 0 {
		msgs = []adk.Message{schema.UserMessage("go")}
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Run(ctx, msgs)
	var events []*adk.AgentEvent
	var first error
	for {
		ev, ok := iter.Next()
		if !ok {
			return events, first
		}
		if ev.Err != nil && first == nil {
			first = ev.Err
		}
		events = append(events, ev)
	}
}

const tenSteps = "# Big job\n- [ ] s1\n- [ ] s2\n- [ ] s3\n- [ ] s4\n- [ ] s5\n- [ ] s6\n- [ ] s7\n- [ ] s8\n- [ ] s9\n- [ ] s10\n"

// The digest is true at every model call whatever the order of the handlers: after a
// summarization handler compacted the history (so the tool results that moved the plan on
// are gone), the very next model call reads the plan as it is now, whether the plan
// middleware comes before the summarization handler or after it.
func TestDigestIsCurrentAtTheCallAfterACompactionInEitherHandlerOrder(t *testing.T) {
	for _, planFirst := range []bool{true, false} {
		t.Run(map[bool]string{true: "plan-then-summarization", false: "summarization-then-plan"}[planFirst], func(t *testing.T) {
			ctx := context.Background()
			_, backend := newStoreWith(t, plan.StoreConfig{}, "job", tenSteps)
			mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "solo"})
			require.NoError(t, err)
			// Five results and their calls after the system message and the request make 12
			// messages: the sixth model call is the first over the trigger.
			handlers := withSummarization(t, mw, "Worked through the first steps of plan job.", 11, planFirst)
			var turns []plantest.Turn
			for i := 1; i <= 5; i++ {
				turns = append(turns, plantest.CallTool("update_plan_step", fmt.Sprintf(`{"name":"job","step":%d,"status":"completed"}`, i)))
			}
			turns = append(turns, plantest.Answer("halfway"))
			model := plantest.NewScriptedModel(turns...)
			agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "solo", Description: "works",
				Instruction: "You work.", Model: model, Handlers: handlers, MaxIterations: 20})
			require.NoError(t, err)
			_, err = seamRun(ctx, agent)
			require.NoError(t, err)

			calls := model.Calls()
			require.Len(t, calls, 6)
			first := calls[0].Input[0].Content
			assert.Contains(t, first, "job r1 ")
			assert.Contains(t, first, "done=0/10")
			after := calls[5].Input
			require.Less(t, len(after), 12, "the history was compacted before the sixth call")
			assert.Contains(t, after[0].Content, "job r6 ", "the call right after the compaction reads the plan as it is")
			assert.Contains(t, after[0].Content, "done=5/10")
			assert.NotContains(t, after[0].Content, "done=0/10")
			for i := 1; i < 5; i++ {
				assert.Equal(t, first, calls[i].Input[0].Content, "no compaction, no change: call %d keeps the cached instruction", i)
			}
		})
	}
}

// Two plan middlewares on one agent (team plans and personal plans) give two instruction
// sections the model tells apart, and one ToolPrefix renames every tool of one of them.
func TestTwoPlanMiddlewaresGiveTwoDistinctSections(t *testing.T) {
	ctx := context.Background()
	team, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), PlanSet: "team plans"})
	require.NoError(t, err)
	mine, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), PlanSet: "my plans", ToolPrefix: "my_"})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(plantest.Answer("ok"))
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
		Instruction: "You plan.", Model: model, Handlers: []adk.ChatModelAgentMiddleware{team, mine}})
	require.NoError(t, err)
	_, err = seamRun(ctx, agent)
	require.NoError(t, err)
	sys := model.Calls()[0].Input[0].Content
	assert.Contains(t, sys, "## Plans (team plans)\n")
	assert.Contains(t, sys, "## Plans (my plans)\n")
	assert.Contains(t, sys, "my_list_plans first")
	tools := strings.Join(model.Calls()[0].ToolNames(), " ")
	for _, name := range []string{"write_plan", "my_write_plan", "read_plan", "my_read_plan", "update_plan_step", "my_update_plan_step"} {
		assert.Contains(t, strings.Fields(tools), name)
	}
}

// A clash of tool names is reported whole, and the advice renames only this middleware's
// plan tools, by their plan-tool names: never a tool ToolNames cannot rename.
func TestToolNameClashesAreReportedAtOnceWithAdviceThatWorks(t *testing.T) {
	ctx := context.Background()
	// runWith runs an agent with no turns under handlers and returns what the run ends with.
	runWith := func(handlers ...adk.ChatModelAgentMiddleware) error {
		t.Helper()
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
			Instruction: "You plan.", Model: plantest.NewScriptedModel(), Handlers: handlers})
		require.NoError(t, err)
		_, runErr := seamRun(ctx, agent)
		return runErr
	}
	fs, err := fsmw.New(ctx, &fsmw.MiddlewareConfig{Backend: filesystem.NewInMemoryBackend()})
	require.NoError(t, err)
	onto, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), ToolNames: map[string]string{"read_plan": "read_file"}})
	require.NoError(t, err)
	runErr := runWith(fs, onto)
	require.Error(t, runErr)
	assert.Contains(t, runErr.Error(), `"read_file"`)
	assert.Contains(t, runErr.Error(), `"read_plan": "my_read_plan"`)
	assert.NotContains(t, runErr.Error(), `"read_file": "my_read_file"`, "read_file is no plan tool")

	// Following the advice works.
	fixed, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), ToolNames: map[string]string{"read_plan": "my_read_plan"}})
	require.NoError(t, err)
	runErr = runWith(fs, fixed)
	assert.NoError(t, runErr)

	// Two plan middlewares with default names clash on every tool, all named in one error.
	a, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	b, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	runErr = runWith(a, b)
	require.Error(t, runErr)
	for _, name := range []string{"write_plan", "read_plan", "list_plans", "update_plan_step", "plan_template"} {
		assert.Contains(t, runErr.Error(), `"`+name+`"`)
	}
	assert.Contains(t, runErr.Error(), "ToolPrefix")
}

// With no Config.Language the texts follow adk.SetLanguage, as Eino's own middlewares do.
// This also pins how the language is read: through the default texts of Eino's
// patchtoolcalls middleware. An Eino release that changes them fails here.
func TestLanguageFollowsEinoSetLanguage(t *testing.T) {
	ctx := context.Background()
	t.Cleanup(func() { _ = adk.SetLanguage(adk.LanguageEnglish) })
	for _, lang := range []adk.Language{adk.LanguageChinese, adk.LanguageEnglish} {
		require.NoError(t, adk.SetLanguage(lang))
		mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend()})
		require.NoError(t, err)
		model := plantest.NewScriptedModel(plantest.CallTool("read_plan", `{"name":"missing"}`), plantest.Answer("ok"))
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
			Instruction: "You plan.", Model: model, Handlers: []adk.ChatModelAgentMiddleware{mw}})
		require.NoError(t, err)
		_, err = seamRun(ctx, agent)
		require.NoError(t, err)
		calls := model.Calls()
		require.Len(t, calls, 2)
		chinese := lang == adk.LanguageChinese
		assert.Equal(t, chinese, hasHan(calls[0].Input[0].Content), "the instruction")
		for _, info := range calls[0].Tools {
			if info.Name == "write_plan" {
				assert.Equal(t, chinese, hasHan(info.Desc), "the tool descriptions")
			}
		}
		_, msg := gateCode(t, gateResult(t, model, 1))
		assert.Equal(t, chinese, hasHan(msg), "the error messages: %s", msg)
	}
}

// An explicit Role is the role in every call, also on a context that no run made:
// RoleSubAgent never asks a person for approval.
func TestExplicitSubAgentRoleHoldsOutsideARun(t *testing.T) {
	ctx := context.Background()
	_, backend := newStoreWith(t, plan.StoreConfig{}, "release", gatePlan)
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, Role: plan.RoleSubAgent, RequireApproval: true})
	require.NoError(t, err)
	_, runCtx, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{})
	require.NoError(t, err)
	var ask tool.InvokableTool
	for _, bt := range runCtx.Tools {
		info, err := bt.Info(ctx)
		require.NoError(t, err)
		if info.Name == plan.ToolRequestPlanApproval {
			ask = bt.(tool.InvokableTool)
		}
	}
	require.NotNil(t, ask)
	out, err := ask.InvokableRun(context.Background(), `{"name":"release"}`)
	require.NoError(t, err, "no interrupt")
	code, _ := gateCode(t, out)
	assert.Equal(t, "tool_not_available", code, out)
}

// Parallel runs of one sub-agent act under names no real agent has: a real sub-agent named
// "worker-2", or even "worker·2", holds apart from the second run of "worker", so it cannot
// finish that run's step; and each run's events carry its own run name.
func TestParallelRunNamesNeverEqualARealAgent(t *testing.T) {
	ctx := context.Background()
	store, backend := newStoreWith(t, plan.StoreConfig{}, "release", tenSteps)
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "lead"})
	require.NoError(t, err)

	var took sync.WaitGroup
	took.Add(2)
	take := takeThenWaitForPeers(&took)
	newSub := func(name string, m *plantest.ScriptedModel) adk.Agent {
		a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: name, Description: "does steps",
			Instruction: "You do steps.", Model: m, Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 10})
		require.NoError(t, err)
		return a
	}
	// The real agents try to finish whichever step the second run of worker holds.
	finishOthers := func(in []*schema.Message) *schema.Message {
		p, err := store.Get(ctx, "release")
		if err != nil {
			return schema.AssistantMessage(err.Error(), nil)
		}
		for _, s := range plan.ParseSteps(p.Content) {
			if s.Holder == "worker·2" {
				return plantest.CallTool("update_plan_step", fmt.Sprintf(`{"name":"release","step":%d,"status":"completed"}`, s.Number))(in)
			}
		}
		return schema.AssistantMessage("nothing held by worker·2", nil)
	}
	dash := plantest.NewScriptedModel(finishOthers, plantest.Answer("tried"))
	dot := plantest.NewScriptedModel(finishOthers, plantest.Answer("tried"))
	task := func(name string) plantest.ToolCall {
		return plantest.ToolCall{Name: "task", Arguments: `{"subagent_type":"` + name + `","description":"work on plan release"}`}
	}
	lead, err := deep.New(ctx, &deep.Config{Name: "lead", Description: "orchestrator",
		ChatModel: plantest.NewScriptedModel(plantest.CallTools(task("worker"), task("worker")),
			plantest.CallTool("task", task("worker-2").Arguments), plantest.CallTool("task", task("worker·2").Arguments),
			plantest.Answer("done")),
		SubAgents: []adk.Agent{newSub("worker", plantest.NewScriptedModel(take, take, take, take)), newSub("worker-2", dash), newSub("worker·2", dot)},
		Handlers:  []adk.ChatModelAgentMiddleware{mw}, ToolsConfig: adk.ToolsConfig{EmitInternalEvents: true},
		WithoutWriteTodos: true, WithoutGeneralSubAgent: true, MaxIteration: 10})
	require.NoError(t, err)
	events, err := seamRun(ctx, lead)
	require.NoError(t, err)

	for name, m := range map[string]*plantest.ScriptedModel{"worker-2": dash, "worker·2": dot} {
		code, _ := gateCode(t, gateResult(t, m, 1))
		assert.Equal(t, "step_held", code, "the real agent %s cannot finish the step of worker's second run", name)
	}
	assertHolders(t, ctx, store, "release", "worker", "worker·2")

	var names []string
	for _, ev := range events {
		if ev.Output == nil {
			continue
		}
		if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok && c.Action == plan.ActionStep {
			names = append(names, ev.AgentName)
		}
	}
	assert.ElementsMatch(t, []string{"worker", "worker·2"}, names, "each run's change events carry its own name")
}

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
