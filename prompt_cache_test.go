package plan_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/summarization"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

const cachedBody = "# Release\n- [ ] Build the release (budget 20k tokens)\n- [ ] Run the tests\n- [ ] Write the notes\n- [ ] Tag the release\n"

// A provider's prompt cache keeps the longest prefix a model call shares with the one before.
// Within one run, while another agent moves steps of the plan the run works on, the system
// message and the tool definitions the model receives stay byte for byte the same from call
// to call, and every call's input starts with the previous call's (its closing reminder
// aside): what changes travels after them, and the others' changes still reach the model,
// with Eino's summarization middleware before or after the plan middleware, in English and
// in Chinese.
func TestThePromptPrefixStaysTheSameWhilePlansChangeUnderIt(t *testing.T) {
	t.Cleanup(func() { _ = adk.SetLanguage(adk.LanguageEnglish) })
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		for _, planFirst := range []bool{true, false} {
			name := map[adk.Language]string{adk.LanguageEnglish: "en", adk.LanguageChinese: "zh"}[lang] + ", " +
				map[bool]string{true: "plan then summarization", false: "summarization then plan"}[planFirst]
			t.Run(name, func(t *testing.T) {
				require.NoError(t, adk.SetLanguage(lang))
				calls := cachedRunCalls(t, planFirst)
				require.Len(t, calls, 6)
				system, tools := wire(t, calls[0].Input[0]), wire(t, calls[0].Tools)
				for i, c := range calls {
					assert.Equal(t, system, wire(t, c.Input[0]), "call %d: the system message is the first call's", i)
					assert.Equal(t, tools, wire(t, c.Tools), "call %d: the tool definitions are the first call's", i)
					if i == 0 {
						continue
					}
					prev := calls[i-1].Input
					if note := lastInput(calls[i-1]); len(prev) > 2 && note.Role == schema.User {
						prev = prev[:len(prev)-1] // a reminder is told once, not kept
					}
					require.Greater(t, len(c.Input), len(prev), "call %d: the history grew", i)
					for j := range prev {
						require.Equal(t, wire(t, prev[j]), wire(t, c.Input[j]), "call %d: message %d is the previous call's", i, j)
					}
				}
				var told []string
				for _, c := range calls {
					if note := lastInput(c); note != nil && note.Role == schema.User && strings.Contains(note.Content, "ana") {
						told = append(told, note.Content)
					}
				}
				require.NotEmpty(t, told, "ana's moves reached the model")
				assert.Equal(t, lang == adk.LanguageChinese, hasHan(told[0]), "in the run's language: %s", told[0])
			})
		}
	}
}

// cachedRunCalls runs a worker on plan "release" (its first step with a budget) behind
// Eino's summarization middleware, which does not fire: it takes step 1, runs the tests,
// finishes step 1 and takes step 2 in the message of its next work call, and so on; ana,
// another agent, takes and finishes step 3 between its model calls. It returns the calls of
// the worker's model.
func cachedRunCalls(t *testing.T, planFirst bool) []plantest.Call {
	t.Helper()
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	store := storeOn(t, backend, "")
	_, err := store.Put(ctx, plan.Update{Name: "release", Content: ptr(cachedBody)})
	require.NoError(t, err)
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker"})
	require.NoError(t, err)
	summ, err := summarization.New(ctx, &summarization.Config{
		Model:   plantest.NewScriptedModel(plantest.Answer("unused")),
		Trigger: &summarization.TriggerCondition{ContextMessages: 1000, ContextTokens: 1 << 30}})
	require.NoError(t, err)
	handlers := []adk.ChatModelAgentMiddleware{mw, summ}
	if !planFirst {
		handlers = []adk.ChatModelAgentMiddleware{summ, mw}
	}
	ana := func(status string, then plantest.Turn) plantest.Turn {
		return func(in []*schema.Message) *schema.Message {
			_, _, err := store.MoveStep(plan.WithActor(ctx, "ana"), plan.StepMove{Name: "release", Step: 3, State: plan.StepState(status)})
			require.NoError(t, err)
			return then(in)
		}
	}
	tests := plantest.ToolCall{Name: "run_tests", Arguments: `{"suite":"all"}`}
	move := func(step int, status string) plantest.ToolCall {
		return plantest.ToolCall{Name: "update_plan_step", Arguments: `{"name":"release","step":` + string(rune('0'+step)) + `,"status":"` + status + `"}`}
	}
	model := plantest.NewScriptedModel(
		plantest.CallTools(move(1, "in_progress")),
		ana("in_progress", plantest.CallTools(tests)),
		plantest.CallTools(move(1, "completed"), move(2, "in_progress"), tests),
		ana("completed", plantest.CallTools(tests)),
		plantest.CallTools(move(2, "completed")),
		plantest.Answer("done"),
	).Billing(4)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "works",
		Instruction: "You work.", Model: model, Handlers: handlers, MaxIterations: 20,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{newSideEffect("run_tests", "suite")}}}})
	require.NoError(t, err)
	gateEvents(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "release it"))
	return model.Calls()
}

// wire is v as a provider receives it: its JSON.
func wire(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
