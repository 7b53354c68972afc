package plan_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
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
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
	var events []*adk.AgentEvent
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		require.NoError(t, ev.Err)
		events = append(events, ev)
	}
	return events
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
	var r struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, sonic.UnmarshalString(result, &r), result)
	if r.Error == nil {
		return ""
	}
	require.NotEmpty(t, r.Error.Message)
	return r.Error.Code
}

type backendCase struct {
	name string
	new  func(t *testing.T) (plan.Backend, plan.Workspace)
}

func backendCases() []backendCase {
	return []backendCase{
		{"memory", func(t *testing.T) (plan.Backend, plan.Workspace) {
			return plan.NewMemoryBackend(), plan.NewMemoryBackend()
		}},
		{"local", func(t *testing.T) (plan.Backend, plan.Workspace) {
			return newLocal(t, t.TempDir()), newLocal(t, t.TempDir())
		}},
	}
}

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
				{"write_plan", `{"name":"ok","content":"x","last_known_revision":"1"}`, "invalid_argument"},
				{"write_plan", `{"name":"ok","content":"x","last_known_revision":-2}`, "invalid_argument"},
				{"write_plan", `not json`, "invalid_argument"},
				{"write_plan", `["name"]`, "invalid_argument"},
				{"read_plan", `{"name":"release","extra":true}`, ""},
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

			store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
			require.NoError(t, err)
			listing, err := store.List(context.Background())
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
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
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
