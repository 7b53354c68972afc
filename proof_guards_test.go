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
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A verifier that panics, or that does not answer within Config.VerifyTimeout, refuses the
// completion with not_verified, saying so in the model's language; the run goes on and the
// step stays in progress with its holder.
func TestAVerifierThatPanicsOrHangsRefusesTheCompletion(t *testing.T) {
	said := map[string][2]string{"en": {"the verifier failed", "did not answer in time"}, "zh": {"验证程序出错", "未在时限内答复"}}
	for _, lg := range proofLanguages {
		for i, c := range []struct {
			name    string
			verify  func(ctx context.Context, _ plan.Completion) error
			timeout time.Duration
		}{
			{"panics", func(context.Context, plan.Completion) error { panic("verifier bug") }, 0},
			{"hangs", func(ctx context.Context, _ plan.Completion) error { <-ctx.Done(); return ctx.Err() }, 50 * time.Millisecond},
		} {
			t.Run(lg.name+"/"+c.name, func(t *testing.T) {
				ctx := context.Background()
				store := proofStore(t, ctx, plan.NewMemoryBackend())
				m := plantest.NewScriptedModel(
					plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`),
					plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"built"}`),
					plantest.CallTool(plan.ToolReadPlan, `{"name":"release"}`),
					plantest.Answer("done"))
				mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, Verify: c.verify, VerifyTimeout: c.timeout})
				require.NoError(t, err)
				results := toolResults(runAgent(t, m, mw))
				require.Len(t, results, 3, "the run goes on")
				code, msg := errorMessage(t, results[1])
				assert.Equal(t, plan.CodeNotVerified, code)
				assert.Contains(t, msg, said[lg.name][i])
				assert.Equal(t, "", errorCode(t, results[2]))
				p, err := store.Get(ctx, "release")
				require.NoError(t, err)
				st := plan.ParseSteps(p.Content)[0]
				assert.Equal(t, plan.StepInProgress, st.State)
				assert.Equal(t, "worker-1", st.Holder)
			})
		}
	}
}

// Two runs of one sub-agent at once act as "worker" and "worker·2": neither completes the
// review of the other's work, since both are the doer (review_own); an agent of another
// name does.
func TestAReviewIsNeverCompletedByAnotherRunOfItsDoer(t *testing.T) {
	ctx := context.Background()
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), "# Release\n- [ ] Write the code (review)\n- [ ] Something else\n")
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "lead"})
	require.NoError(t, err)

	var starts atomic.Int32
	doerDone, reviewerDone := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var reviewed string
	wait := func(ch chan struct{}) {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
		}
	}
	take := plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)
	complete := plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"written"}`)
	review := plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed"}`)
	turn := func(in []*schema.Message) *schema.Message {
		last := in[len(in)-1]
		if last.Role != schema.Tool {
			if starts.Add(1) == 1 {
				return take(in) // the doer
			}
			wait(doerDone) // the other run reviews once the doer is done, while it still runs
			return review(in)
		}
		asked := in[len(in)-2].ToolCalls[0].Function.Arguments
		switch {
		case strings.Contains(asked, "in_progress"):
			return complete(in)
		case strings.Contains(asked, "evidence"):
			close(doerDone)
			wait(reviewerDone)
			return schema.AssistantMessage("wrote it", nil)
		}
		mu.Lock()
		reviewed = last.Content
		mu.Unlock()
		close(reviewerDone)
		return schema.AssistantMessage("reviewed it", nil)
	}
	sub, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "does plan steps",
		Instruction: "You do plan steps.", Model: plantest.NewScriptedModel(turn, turn, turn, turn, turn, turn),
		Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 10})
	require.NoError(t, err)
	task := plantest.ToolCall{Name: "task", Arguments: `{"subagent_type":"worker","description":"work on plan release"}`}
	lead, err := deep.New(ctx, &deep.Config{Name: "lead", Description: "orchestrator",
		ChatModel: plantest.NewScriptedModel(plantest.CallTools(task, task), plantest.Answer("both done")),
		SubAgents: []adk.Agent{sub}, Handlers: []adk.ChatModelAgentMiddleware{mw},
		WithoutWriteTodos: true, WithoutGeneralSubAgent: true, MaxIteration: 10})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: lead}).Query(ctx, "release"))

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, string(plan.CodeIllegalTransition), errorCode(t, reviewed), "another run of the doer: %s", reviewed)
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	st := plan.ParseSteps(p.Content)[0]
	require.True(t, st.AwaitingReview, st.Text)
	assert.Contains(t, []string{"worker", "worker·2"}, st.DoneBy)

	// An agent of another name completes the review.
	m := plantest.NewScriptedModel(review, plantest.Answer("reviewed"))
	tester, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "tester"})
	require.NoError(t, err)
	results := toolResults(runAgent(t, m, tester))
	require.Len(t, results, 1)
	assert.Equal(t, "", errorCode(t, results[0]), results[0])
}

// A failed step blocks the steps that wait for it, so an agent marks it failed only while
// it holds it; a person (the Store's API) may, and a step nobody waits for any agent may.
func TestOnlyAHolderOrAPersonFailsAStepOthersWaitFor(t *testing.T) {
	const body = "# Build\n- [ ] Compile\n- [ ] Ship (after 1)\n- [ ] Tidy up\n"
	fail := func(step string) plantest.Turn {
		return plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":`+step+`,"status":"failed"}`)
	}
	for _, lg := range proofLanguages {
		t.Run(lg.name, func(t *testing.T) {
			ctx := context.Background()
			store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
			intruder, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "intruder", Language: lg.lang})
			require.NoError(t, err)
			results := toolResults(runAgent(t, plantest.NewScriptedModel(fail("1"), fail("3"), plantest.Answer("done")), intruder))
			require.Len(t, results, 2)
			code, msg := errorMessage(t, results[0])
			assert.Equal(t, plan.CodeIllegalTransition, code)
			assert.Contains(t, msg, "2", "it names the step that waits")
			assert.Equal(t, lg.name == "zh", hasHan(msg), msg)
			assert.Equal(t, "", errorCode(t, results[1]), "nobody waits for step 3: %s", results[1])
			p, err := store.Get(ctx, "release")
			require.NoError(t, err)
			assert.Equal(t, plan.StepPending, plan.ParseSteps(p.Content)[0].State)

			holder, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "builder", Language: lg.lang})
			require.NoError(t, err)
			take := plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)
			results = toolResults(runAgent(t, plantest.NewScriptedModel(take, fail("1"), plantest.Answer("done")), holder))
			require.Len(t, results, 2)
			assert.Equal(t, "", errorCode(t, results[1]), results[1])
		})
	}
	ctx := context.Background()
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
	_, st, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepFailed})
	require.NoError(t, err, "a person")
	assert.Equal(t, plan.StepFailed, st.State)
}
