package plan_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// compactor stands for a summarization middleware: before a model call with a long
// history, it keeps only the system message and the user's request.
type compactor struct {
	*adk.BaseChatModelAgentMiddleware
}

func (compactor) BeforeModelRewriteState(ctx context.Context, st *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	if len(st.Messages) > 4 {
		next := *st
		next.Messages = append([]*schema.Message{}, st.Messages[:2]...)
		return ctx, &next, nil
	}
	return ctx, st, nil
}

// After the history is compacted the digest names the plans as they are now, including a plan
// created in this run, whether or not any plan existed when the run started.
func TestDigestRenewedAfterCompactionWhenTheRunStartedWithNoPlans(t *testing.T) {
	ctx := context.Background()
	for _, startWith := range []bool{true, false} {
		mem := plan.NewMemoryBackend()
		if startWith {
			_, err := storeOn(t, mem, "").Put(ctx, plan.Update{Name: "old", Content: ptrTo("- [ ] a\n")})
			require.NoError(t, err)
		}
		mw, err := plan.New(ctx, &plan.Config{Backend: mem})
		require.NoError(t, err)
		model := plantest.NewScriptedModel(
			plantest.CallTool("write_plan", `{"name":"release","content":"- [ ] ship\n"}`),
			plantest.CallTool("get_plan_status", `{"name":"release"}`),
			plantest.Answer("ok"))
		runAgent(t, model, compactor{&adk.BaseChatModelAgentMiddleware{}}, mw)
		calls := model.Calls()
		last := calls[len(calls)-1]
		require.LessOrEqual(t, len(last.Input), 3, "the history was compacted")
		assert.Contains(t, last.Input[0].Content, "release", "plans existed at start: %v; after compaction the digest names the plan", startWith)
	}
}

// eager compacts before every model call that has more than the system message and the
// request: the history then never gets shorter than at the previous call.
type eager struct {
	*adk.BaseChatModelAgentMiddleware
}

func (eager) BeforeModelRewriteState(ctx context.Context, st *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	if len(st.Messages) > 2 {
		next := *st
		next.Messages = append([]*schema.Message{}, st.Messages[:2]...)
		return ctx, &next, nil
	}
	return ctx, st, nil
}

// A compaction that leaves as many messages as the previous model call had still renews the
// digest: the model reads the plan as it is now.
func TestDigestRenewedAfterCompactionToTheSameLength(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	_, err := storeOn(t, mem, "").Put(ctx, plan.Update{Name: "release", Content: ptrTo("- [ ] a\n- [ ] b\n")})
	require.NoError(t, err)
	mw, err := plan.New(ctx, &plan.Config{Backend: mem})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"completed"}`),
		plantest.Answer("ok"))
	runAgent(t, model, eager{&adk.BaseChatModelAgentMiddleware{}}, mw)
	calls := model.Calls()
	last := calls[len(calls)-1]
	require.Len(t, last.Input, 2, "the tool result was compacted away")
	assert.Contains(t, last.Input[0].Content, "release r2", "the digest shows the plan as it is now")
}
