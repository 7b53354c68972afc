package plan_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
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

	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
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

	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	var holders []string
	for _, s := range plan.ParseSteps(p.Content) {
		if s.Holder != "" {
			holders = append(holders, s.Holder)
		}
	}
	assert.ElementsMatch(t, []string{"worker", "worker·2"}, holders, p.Content)
}

// takeThenWaitForPeers is a worker's turn that takes the next free step of plan release, then
// waits (up to 10 s) until every run counted in took has taken one too, so the runs overlap,
// and stops.
func takeThenWaitForPeers(took *sync.WaitGroup) plantest.Turn {
	return func(in []*schema.Message) *schema.Message {
		if last := in[len(in)-1]; last.Role == schema.Tool {
			took.Done()
			done := make(chan struct{})
			go func() { took.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
			}
			return schema.AssistantMessage("took one", nil)
		}
		return plantest.CallTool("update_plan_step", `{"name":"release","status":"in_progress"}`)(in)
	}
}
