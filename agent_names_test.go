package plan_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

const sixSteps = "# Release\n- [ ] design\n- [ ] build\n- [ ] test\n- [ ] docs\n- [ ] deploy\n- [ ] announce\n"

// A deep agent hands steps to two workers that run in parallel, all on one middleware.
// Neither worker reads before moving: every move names revision 1, and only moves of other
// steps happened since, so none conflicts. A move after the orchestrator reordered the
// steps is refused, and a step one worker holds cannot be finished by the other.
func TestParallelWorkersOnOnePlanThroughADeepAgent(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)

	step := func(n, status string, rev string) plantest.Turn {
		args := `{"name":"release","step":` + n + `,"status":"` + status + `"`
		if rev != "" {
			args += `,"last_known_revision":` + rev
		}
		return plantest.CallTool("update_plan_step", args+"}")
	}
	a := plantest.NewScriptedModel(
		step("1", "in_progress", "1"), step("1", "completed", "1"),
		step("3", "in_progress", "1"), step("3", "completed", "1"),
		plantest.Answer("a: 1 and 3 done"),
		step("5", "in_progress", "8"), // the steps were reordered at revision 9
		plantest.CallTool("read_plan", `{"name":"release","since_revision":8}`),
		step("5", "in_progress", "9"),
		plantest.Answer("a: holds 5"),
	)
	b := plantest.NewScriptedModel(
		step("2", "in_progress", "1"), step("2", "completed", "1"),
		step("4", "skipped", "1"),
		plantest.Answer("b: 2 done, 4 skipped"),
		step("5", "completed", ""), // held by worker-a
		step("6", "in_progress", "9"),
		plantest.Answer("b: holds 6"),
	)
	newSub := func(name string, m *plantest.ScriptedModel) adk.Agent {
		sub, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: name, Description: "executes plan steps",
			Instruction: "You execute steps.", Model: m, Handlers: []adk.ChatModelAgentMiddleware{mw}})
		require.NoError(t, err)
		return sub
	}
	task := func(who, what string) plantest.ToolCall {
		return plantest.ToolCall{Name: "task", Arguments: `{"subagent_type":"` + who + `","description":"` + what + `"}`}
	}
	reordered := strings.Replace(sixSteps, "- [ ] deploy\n- [ ] announce\n", "- [ ] announce\n- [ ] deploy\n", 1)
	reordered = strings.NewReplacer("- [ ] design", "- [x] design (@worker-a)", "- [ ] build", "- [x] build (@worker-b)",
		"- [ ] test", "- [x] test (@worker-a)", "- [ ] docs", "- [-] docs").Replace(reordered)
	main := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"release","content":`+quote(sixSteps)+`,"last_known_revision":0}`),
		plantest.CallTools(task("worker-a", "steps 1 and 3 of plan release"), task("worker-b", "steps 2 and 4 of plan release")),
		plantest.CallTool("write_plan", `{"name":"release","content":`+quote(reordered)+`,"last_known_revision":8}`),
		plantest.CallTools(task("worker-a", "step 5 of plan release")),
		plantest.CallTools(task("worker-b", "step 5 of plan release")),
		plantest.Answer("all done"),
	)
	agent, err := deep.New(ctx, &deep.Config{Name: "lead", Description: "orchestrator", ChatModel: main,
		SubAgents: []adk.Agent{newSub("worker-a", a), newSub("worker-b", b)},
		Handlers:  []adk.ChatModelAgentMiddleware{mw}, WithoutWriteTodos: true, MaxIteration: 30})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "release it"))

	// Each call's input ends with the results of the previous turn's tool calls.
	results := func(m *plantest.ScriptedModel) []string {
		var out []string
		for _, c := range m.Calls() {
			var last []string
			for _, msg := range c.Input {
				if msg.Role == schema.Tool {
					last = append(last, msg.Content)
				} else if msg.Role == schema.Assistant { // a reminder (a user message) may follow them
					last = last[:0]
				}
			}
			out = append(out, last...)
		}
		return out
	}
	ra, rb := results(a), results(b)
	require.Len(t, ra, 7)
	require.Len(t, rb, 5)
	for i, r := range append(ra[:4:4], rb[:3]...) {
		assert.Empty(t, errorCode(t, r), "parallel stale move %d of other steps applies: %s", i, r)
	}
	assert.Equal(t, "revision_conflict", errorCode(t, ra[4]), "a move after the reorder: %s", ra[4])
	assert.Contains(t, ra[4], "since_revision 8")
	assert.Contains(t, ra[5], "+- [ ] deploy", "the changes since show the reorder")
	assert.Empty(t, errorCode(t, ra[6]), ra[6])
	assert.Equal(t, "step_held", errorCode(t, rb[3]), "a claimed step cannot be taken silently: %s", rb[3])
	assert.Contains(t, rb[3], "worker-a")
	assert.Empty(t, errorCode(t, rb[4]), rb[4])

	store := storeOn(t, backend, "")
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.EqualValues(t, 11, p.Revision, "1 create + 7 moves + 1 rewrite + 2 claims")
	assert.Contains(t, p.Content, "- [~] announce (@worker-a)\n")
	assert.Contains(t, p.Content, "- [~] deploy (@worker-b)\n")
	steps := plan.ParseSteps(p.Content)
	assert.Equal(t, "worker-a", steps[4].Holder)
	h, err := store.History(ctx, "release")
	require.NoError(t, err)
	by := map[string]int{}
	for _, r := range h {
		by[r.Author]++
	}
	assert.Equal(t, 5, by["worker-a"], "history names each worker: %v", by)
	assert.Equal(t, 4, by["worker-b"], "history names each worker: %v", by)
}

// Two runs of one sub-agent at once, started by two task calls in one turn, hold steps
// under names of their own, so neither can finish the other's step.
func TestTwoRunsOfOneSubAgentHoldStepsApart(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	// Each run takes the next free step, then waits until the other has taken one too, so
	// the two runs overlap, then stops.
	var took sync.WaitGroup
	took.Add(2)
	take := takeThenWaitForPeers(&took)
	worker := plantest.NewScriptedModel(take, take, take, take)
	sub, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "executes plan steps",
		Instruction: "You execute steps.", Model: worker, Handlers: []adk.ChatModelAgentMiddleware{mw}})
	require.NoError(t, err)
	task := plantest.ToolCall{Name: "task", Arguments: `{"subagent_type":"worker","description":"take a step of plan release"}`}
	main := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"release","content":`+quote(sixSteps)+`,"last_known_revision":0}`),
		plantest.CallTools(task, task),
		plantest.Answer("two workers busy"),
	)
	agent, err := deep.New(ctx, &deep.Config{Name: "lead", Description: "orchestrator", ChatModel: main,
		SubAgents: []adk.Agent{sub}, Handlers: []adk.ChatModelAgentMiddleware{mw}, WithoutWriteTodos: true, MaxIteration: 10})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "release it"))

	store := storeOn(t, backend, "")
	assertHolders(t, ctx, store, "release", "worker", "worker·2")
}

// assertHolders asserts that the steps of plan name on s are held by exactly want, in any
// order.
func assertHolders(t *testing.T, ctx context.Context, s *plan.Store, name string, want ...string) {
	t.Helper()
	p, err := s.Get(ctx, name)
	require.NoError(t, err)
	var holders []string
	for _, st := range plan.ParseSteps(p.Content) {
		if st.Holder != "" {
			holders = append(holders, st.Holder)
		}
	}
	assert.ElementsMatch(t, want, holders, p.Content)
}

// takeThenWaitForPeers is a worker's turn that takes the next free step of plan release, then
// waits (up to 10 s) until every run counted in took has taken one too, so the runs overlap,
// and stops.
func takeThenWaitForPeers(took *sync.WaitGroup) plantest.Turn {
	return func(in []*schema.Message) *schema.Message {
		if last := in[len(in)-1]; last.Role == schema.Tool {
			waitForPeers(took)
			return schema.AssistantMessage("took one", nil)
		}
		return plantest.CallTool("update_plan_step", `{"name":"release","status":"in_progress"}`)(in)
	}
}

// waitForPeers counts this run in took and waits (up to 10 s) until every run counted in took
// has come this far too.
func waitForPeers(took *sync.WaitGroup) {
	took.Done()
	done := make(chan struct{})
	go func() { took.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
}

// deployPlan is plan release, approved by ana, with nothing taken.
const deployPlan = "# Release\n- [ ] Write the notes (uses deploy_prod)\n- [ ] Deploy to production (uses deploy_prod)\n"

// approvedDeploy stores deployPlan approved by ana on a fresh MemoryBackend; with holder set,
// step 1 is held by that agent.
func approvedDeploy(t *testing.T, holder string) (*plan.MemoryBackend, *plan.Store) {
	t.Helper()
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	store := storeOn(t, backend, "")
	body := deployPlan
	p, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
	require.NoError(t, err)
	p, err = store.Approve(ctx, "release", p.Revision, "ana")
	require.NoError(t, err)
	if holder != "" {
		_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepInProgress, By: holder, IfRevision: &p.Revision})
		require.NoError(t, err)
	}
	return backend, store
}

// sideEffect is a tool whose run is its effect: it counts its runs. params are the
// parameters it declares.
type sideEffect struct {
	name   string
	params map[string]*schema.ParameterInfo
	ran    *atomic.Int32
}

func newSideEffect(name string, params ...string) sideEffect {
	s := sideEffect{name: name, params: map[string]*schema.ParameterInfo{}, ran: &atomic.Int32{}}
	for _, p := range params {
		s.params[p] = &schema.ParameterInfo{Type: schema.String}
	}
	return s
}

func (s sideEffect) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: s.name, Desc: "acts", ParamsOneOf: schema.NewParamsOneOfByParams(s.params)}, nil
}

func (s sideEffect) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	s.ran.Add(1)
	return "done", nil
}

// runsAgent is a host's own tool that runs an agent inside its call and declares the
// parameters a deep agent's task tool has, as a hand-written delegation tool would.
type runsAgent struct {
	name  string
	agent adk.Agent
}

func (r runsAgent) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: r.name, Desc: "hands work to a helper", ParamsOneOf: schema.NewParamsOneOfByParams(
		map[string]*schema.ParameterInfo{"subagent_type": {Type: schema.String}, "description": {Type: schema.String}})}, nil
}

func (r runsAgent) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: r.agent}).Query(ctx, args)
	out := ""
	for {
		ev, ok := iter.Next()
		if !ok {
			return out, nil
		}
		if ev.Err != nil {
			return "", ev.Err
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil {
			out = ev.Output.MessageOutput.Message.Content
		}
	}
}

// A deep agent's task tool reads subagent_type with encoding/json, keys in any case and
// escaped; the run it starts acts as the sub-agent the task tool really runs, whatever way
// the model spelled the key. So a worker's step lets no other worker deploy.
func TestASubAgentActsAsTheAgentTheTaskToolRuns(t *testing.T) {
	ctx := context.Background()
	backend, store := approvedDeploy(t, "")
	var log gateLog
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "lead", GatedTools: []string{"deploy_prod"}, OnGatedCall: log.hear})
	require.NoError(t, err)
	deploy := newSideEffect("deploy_prod", "target")
	worker := func(name string, turns ...plantest.Turn) adk.Agent {
		a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: name, Description: "does plan steps",
			Instruction: "You do plan steps.", Model: plantest.NewScriptedModel(turns...), Handlers: []adk.ChatModelAgentMiddleware{mw},
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{deploy}}}, MaxIterations: 10})
		require.NoError(t, err)
		return a
	}
	deployNow := plantest.CallTool("deploy_prod", `{"target":"prod"}`)
	a := worker("writer-a", plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"in_progress"}`), plantest.Answer("a holds 1"))
	b := worker("writer-b", deployNow, plantest.Answer("b tried"), deployNow, plantest.Answer("b tried"), deployNow, plantest.Answer("b tried"))
	lead, err := deep.New(ctx, &deep.Config{Name: "lead", Description: "orchestrator",
		ChatModel: plantest.NewScriptedModel(
			plantest.CallTool("task", `{"SUBAGENT_TYPE":"writer-a","description":"take step 1 of plan release"}`),
			plantest.CallTool("task", `{"SUBAGENT_TYPE":"writer-b","description":"deploy"}`),
			plantest.CallTool("task", `{"subagent\u005ftype":"writer-b","description":"deploy"}`),
			plantest.CallTool("task", "{\"\u017fubagent_type\":\"writer-b\",\"description\":\"deploy\"}"),
			plantest.Answer("done")),
		SubAgents: []adk.Agent{a, b}, Handlers: []adk.ChatModelAgentMiddleware{mw},
		WithoutWriteTodos: true, WithoutGeneralSubAgent: true, MaxIteration: 10})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: lead}).Query(ctx, "release"))

	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, "writer-a", plan.ParseSteps(p.Content)[0].Holder, p.Content)
	assert.Zero(t, deploy.ran.Load(), "writer-a's step let no other run deploy")
	heard := log.calls()
	require.Len(t, heard, 3, "%+v", heard)
	for _, c := range heard {
		assert.Equal(t, "writer-b", c.Agent, "%+v", c)
		assert.False(t, c.Allowed, "%+v", c)
	}
}

// Only Eino's agent starters name the run they start: a host's own tool that runs a helper
// agent names its run after the tool, whatever subagent_type the model gives it and even
// when the tool is called task. So a helper never acts as an agent that holds a step.
func TestOnlyEinoStartersNameTheRunsTheyStart(t *testing.T) {
	ctx := context.Background()
	backend, store := approvedDeploy(t, "writer-a")
	var log gateLog
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "lead", GatedTools: []string{"deploy_prod"}, OnGatedCall: log.hear})
	require.NoError(t, err)
	deploy := newSideEffect("deploy_prod", "target")
	deployNow := plantest.CallTool("deploy_prod", `{"target":"prod"}`)
	helper, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "helper", Description: "helps",
		Instruction: "You help.", Model: plantest.NewScriptedModel(deployNow, plantest.Answer("tried"), deployNow, plantest.Answer("tried")),
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{deploy}}}, MaxIterations: 10})
	require.NoError(t, err)
	lead, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "lead", Description: "leads", Instruction: "You lead.",
		Model: plantest.NewScriptedModel(
			plantest.CallTool("delegate", `{"subagent_type":"writer-a","description":"deploy"}`),
			plantest.CallTool("task", `{"subagent_type":"writer-a","description":"deploy"}`),
			plantest.Answer("done")),
		Handlers: []adk.ChatModelAgentMiddleware{mw},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{
			runsAgent{name: "delegate", agent: helper}, runsAgent{name: "task", agent: helper}, deploy}}}, MaxIterations: 10})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: lead}).Query(ctx, "release"))

	assert.Zero(t, deploy.ran.Load(), "the helper never deployed under writer-a's step")
	heard := log.calls()
	require.Len(t, heard, 2, "%+v", heard)
	assert.Equal(t, "delegate", heard[0].Agent)
	assert.Equal(t, "task", heard[1].Agent)
	for _, c := range heard {
		assert.False(t, c.Allowed, "%+v", c)
	}
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, "writer-a", plan.ParseSteps(p.Content)[0].Holder)
}
