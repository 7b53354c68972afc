package plan_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/summarization"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// compactionSteps is the size of the plan the compaction tests track; compactionDone how
// many of its steps the model completes before the history is compacted.
const (
	compactionSteps = 40
	compactionDone  = 5
)

func fortyStepBody() string {
	var b strings.Builder
	b.WriteString("# Migration\n")
	for i := 1; i <= compactionSteps; i++ {
		fmt.Fprintf(&b, "- [ ] move table %d\n", i)
	}
	return b.String()
}

// compactionRun runs a real ChatModelAgent whose Handlers are Eino's summarization
// middleware, then the plan middleware. The model plays turns, then answers; the
// summarization fires when the history holds more than triggerMessages messages. It returns
// the system message of every call of the agent's model, and how many messages each call
// was given.
func compactionRun(t *testing.T, backend plan.Backend, turns []plantest.Turn, triggerMessages int) (systems []string, sizes []int, summarized int) {
	t.Helper()
	ctx := context.Background()
	summarizer := plantest.NewScriptedModel(plantest.Answer("The agent is migrating tables; see the plans."))
	sum, err := summarization.New(ctx, &summarization.Config{
		Model: summarizer,
		// Tokens never trigger here: only the message count does, at a known call.
		Trigger: &summarization.TriggerCondition{ContextMessages: triggerMessages, ContextTokens: 1 << 30},
	})
	require.NoError(t, err)
	planMW, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "migrator"})
	require.NoError(t, err)

	m := plantest.NewScriptedModel(turns...)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "migrator", Description: "migrates", Instruction: "You migrate tables.", Model: m,
		Handlers: []adk.ChatModelAgentMiddleware{sum, planMW}, MaxIterations: 50,
	})
	require.NoError(t, err)
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "migrate every table")
	for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
		require.NoError(t, ev.Err)
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			if msg := ev.Output.MessageOutput.Message; msg != nil && msg.Role == schema.Tool {
				assert.Empty(t, errorCode(t, msg.Content), msg.Content)
			}
		}
	}
	for _, call := range m.Calls() {
		require.NotEmpty(t, call.Input)
		require.Equal(t, schema.System, call.Input[0].Role, "the instruction is the first message")
		systems = append(systems, call.Input[0].Content)
		sizes = append(sizes, len(call.Input))
	}
	return systems, sizes, len(summarizer.Calls())
}

// completeTurns marks steps 1..compactionDone completed, one call each.
func completeTurns() []plantest.Turn {
	var turns []plantest.Turn
	for i := 1; i <= compactionDone; i++ {
		turns = append(turns, plantest.CallTool(plan.ToolUpdatePlanStep, fmt.Sprintf(`{"name":"migration","step":%d,"status":"completed"}`, i)))
	}
	return turns
}

// checkCompaction asserts what the model saw around the one compaction: an unchanged system
// message before it (prompt caching), and after it a digest naming the plan as it is now.
func checkCompaction(t *testing.T, systems []string, sizes []int, summarized int, before string, wantRev int64) {
	t.Helper()
	require.Equal(t, 1, summarized, "the summarization ran exactly once")
	shrank := -1
	for i := 1; i < len(sizes); i++ {
		if sizes[i] < sizes[i-1] {
			shrank = i
			break
		}
	}
	require.Positive(t, shrank, "the history shrank at some model call: %v", sizes)
	for i := 1; i < shrank; i++ {
		assert.Equal(t, systems[0], systems[i], "model call %d: the system message changed before any compaction", i)
	}
	if before != "" {
		assert.Contains(t, systems[0], before)
	}
	after := systems[shrank]
	line := digestLineOf(after, "migration")
	require.NotEmpty(t, line, "the system message after compaction names the plan:\n%s", after)
	assert.Contains(t, line, fmt.Sprintf("migration r%d ", wantRev))
	assert.Contains(t, line, fmt.Sprintf("done=%d/%d", compactionDone, compactionSteps))
	assert.Contains(t, line, fmt.Sprintf("next=#%d ", compactionDone+1))
	assert.NotContains(t, line, fmt.Sprintf("done=0/%d", compactionSteps))
	assert.NotContains(t, line, "next=#1 ")
	assert.Equal(t, 1, strings.Count(after, "- migration r"), "one digest line for the plan:\n%s", after)
	assert.Contains(t, after, "You migrate tables.", "the rest of the instruction is kept")
	for i := shrank + 1; i < len(systems); i++ {
		assert.Equal(t, after, systems[i], "model call %d: the renewed system message changed again", i)
	}
}

// digestLineOf returns the digest line of plan name in an instruction, or "".
func digestLineOf(instruction, name string) string {
	for _, line := range strings.Split(instruction, "\n") {
		if strings.HasPrefix(line, "- "+name+" r") {
			return line
		}
	}
	return ""
}

// TestCompactionRenewsDigestOfExistingPlan: a plan written before the run is in the digest
// at revision 1 with nothing done; after the model completes five steps and Eino's real
// summarization compacts the history, the model's system message shows revision 6,
// done=5/40 and next=#6.
func TestCompactionRenewsDigestOfExistingPlan(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	body := fortyStepBody()
	_, err = store.Put(ctx, plan.Update{Name: "migration", Content: &body})
	require.NoError(t, err)

	turns := completeTurns()
	turns = append(turns, plantest.CallTool(plan.ToolGetPlanStatus, `{"name":"migration"}`), plantest.Answer("continuing"))
	// system + user + 5 × (call, result) = 12 messages at the 6th model call: no trigger;
	// 14 at the 7th: compaction.
	systems, sizes, summarized := compactionRun(t, backend, turns, 13)
	checkCompaction(t, systems, sizes, summarized, fmt.Sprintf("done=0/%d next=#1 ", compactionSteps), 1+compactionDone)
}

// TestCompactionRenewsDigestOfPlanWrittenInRun: the model writes the 40-step plan itself
// during the run (so the digest at the start of the run is empty), completes five steps,
// and keeps going until the summarization compacts the history: the model, which no longer
// sees the tool results, must then read the plan at its new revision in its system message.
func TestCompactionRenewsDigestOfPlanWrittenInRun(t *testing.T) {
	backend := plan.NewMemoryBackend()
	turns := []plantest.Turn{plantest.CallTool(plan.ToolWritePlan,
		`{"name":"migration","content":`+quote(fortyStepBody())+`,"last_known_revision":0}`)}
	turns = append(turns, completeTurns()...)
	turns = append(turns, plantest.CallTool(plan.ToolGetPlanStatus, `{"name":"migration"}`), plantest.Answer("continuing"))
	// 2 + 6 × 2 = 14 messages at the 7th model call: no trigger at 15; 16 at the 8th.
	systems, sizes, summarized := compactionRun(t, backend, turns, 15)
	require.NotEmpty(t, digestLineOf(systems[len(systems)-1], "migration"), "a plan written during the run is in the renewed digest")
	checkCompaction(t, systems, sizes, summarized, "", 1+compactionDone)
}
