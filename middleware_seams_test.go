package plan_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/filesystem"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/cloudwego/eino/adk/middlewares/summarization"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

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
			backend := plan.NewMemoryBackend()
			store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
			require.NoError(t, err)
			_, err = store.Put(ctx, plan.Update{Name: "job", Content: gatePtr(tenSteps)})
			require.NoError(t, err)
			mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "solo"})
			require.NoError(t, err)
			// Five results and their calls after the system message and the request make 12
			// messages: the sixth model call is the first over the trigger.
			summ, err := summarization.New(ctx, &summarization.Config{
				Model:   plantest.NewScriptedModel(plantest.Answer("Worked through the first steps of plan job.")),
				Trigger: &summarization.TriggerCondition{ContextMessages: 11, ContextTokens: 1 << 30}})
			require.NoError(t, err)
			handlers := []adk.ChatModelAgentMiddleware{mw, summ}
			if !planFirst {
				handlers = []adk.ChatModelAgentMiddleware{summ, mw}
			}
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
	fs, err := fsmw.New(ctx, &fsmw.MiddlewareConfig{Backend: filesystem.NewInMemoryBackend()})
	require.NoError(t, err)
	onto, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), ToolNames: map[string]string{"read_plan": "read_file"}})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
		Instruction: "You plan.", Model: plantest.NewScriptedModel(), Handlers: []adk.ChatModelAgentMiddleware{fs, onto}})
	require.NoError(t, err)
	_, runErr := seamRun(ctx, agent)
	require.Error(t, runErr)
	assert.Contains(t, runErr.Error(), `"read_file"`)
	assert.Contains(t, runErr.Error(), `"read_plan": "my_read_plan"`)
	assert.NotContains(t, runErr.Error(), `"read_file": "my_read_file"`, "read_file is no plan tool")

	// Following the advice works.
	fixed, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), ToolNames: map[string]string{"read_plan": "my_read_plan"}})
	require.NoError(t, err)
	agent, err = adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
		Instruction: "You plan.", Model: plantest.NewScriptedModel(), Handlers: []adk.ChatModelAgentMiddleware{fs, fixed}})
	require.NoError(t, err)
	_, runErr = seamRun(ctx, agent)
	assert.NoError(t, runErr)

	// Two plan middlewares with default names clash on every tool, all named in one error.
	a, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	b, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	agent, err = adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
		Instruction: "You plan.", Model: plantest.NewScriptedModel(), Handlers: []adk.ChatModelAgentMiddleware{a, b}})
	require.NoError(t, err)
	_, runErr = seamRun(ctx, agent)
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
		assert.Equal(t, chinese, gateHan(calls[0].Input[0].Content), "the instruction")
		for _, info := range calls[0].Tools {
			if info.Name == "write_plan" {
				assert.Equal(t, chinese, gateHan(info.Desc), "the tool descriptions")
			}
		}
		_, msg := gateCode(t, gateResult(t, model, 1))
		assert.Equal(t, chinese, gateHan(msg), "the error messages: %s", msg)
	}
}

// An explicit Role is the role in every call, also on a context that no run made:
// RoleSubAgent never asks a person for approval.
func TestExplicitSubAgentRoleHoldsOutsideARun(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = store.Put(ctx, plan.Update{Name: "release", Content: gatePtr(gatePlan)})
	require.NoError(t, err)
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
	backend := plan.NewMemoryBackend()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = store.Put(ctx, plan.Update{Name: "release", Content: gatePtr(tenSteps)})
	require.NoError(t, err)
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
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	var holders []string
	for _, s := range plan.ParseSteps(p.Content) {
		if s.Holder != "" {
			holders = append(holders, s.Holder)
		}
	}
	assert.ElementsMatch(t, []string{"worker", "worker·2"}, holders, p.Content)

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
