package plan_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A verifier's error refuses the completion with not_verified and the error's text, in the
// model's language; nothing is written and the step stays in progress with its holder. Once
// the verifier agrees, the completion lands, and the verifier saw the completion as asked.
func TestAVerifierRefusesACompletionAndTheStepStaysWithItsHolder(t *testing.T) {
	for _, lg := range proofLanguages {
		for bname, backend := range proofBackends(t) {
			t.Run(lg.name+"/"+bname, func(t *testing.T) {
				ctx := context.Background()
				store := proofStore(t, ctx, backend)
				var mu sync.Mutex
				var seen []plan.Completion
				verify := func(_ context.Context, c plan.Completion) error {
					mu.Lock()
					seen = append(seen, c)
					mu.Unlock()
					if !strings.Contains(c.Evidence, "exit 0") {
						return errors.New("go test ./... exited 1: 3 of 40 tests failed")
					}
					return nil
				}
				m := plantest.NewScriptedModel(
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)),
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"looks fine"}`)),
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"go test ./... exit 0"}`)),
				)
				mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, Verify: verify})
				require.NoError(t, err)
				results := toolResults(runAgent(t, m, mw))
				require.Len(t, results, 3)
				code, msg := errorMessage(t, results[1])
				assert.Equal(t, plan.CodeNotVerified, code)
				assert.Contains(t, msg, "go test ./... exited 1: 3 of 40 tests failed")
				if lg.name == "zh" {
					assert.Contains(t, msg, "检查未通过")
				}
				assert.Equal(t, "", errorCode(t, results[2]), results[2])

				require.Len(t, seen, 2)
				assert.Equal(t, plan.Completion{Plan: "release", Step: 1, Text: "Build the binaries", Evidence: "looks fine", Agent: "worker-1", Revision: 2}, seen[0])
				h, err := store.GetRevision(ctx, "release", 2)
				require.NoError(t, err)
				st := plan.ParseSteps(h.Content)[0]
				assert.Equal(t, plan.StepInProgress, st.State, "the refused completion wrote nothing")
				assert.Equal(t, "worker-1", st.Holder)
				p, err := store.Get(ctx, "release")
				require.NoError(t, err)
				assert.Equal(t, int64(3), p.Revision)
				assert.Equal(t, "go test ./... exit 0", plan.ParseSteps(p.Content)[0].Evidence)
			})
		}
	}
}

// A step ending "(review)" completed by its holder awaits review, in progress and held by
// nobody; its doer cannot complete it (review_own, in the model's language), another agent
// can, and so can a person through the Store.
func TestAReviewStepIsCompletedOnlyBySomeoneElse(t *testing.T) {
	for _, lg := range proofLanguages {
		for bname, backend := range proofBackends(t) {
			t.Run(lg.name+"/"+bname, func(t *testing.T) {
				ctx := context.Background()
				store := proofStore(t, ctx, backend)
				doer := plantest.NewScriptedModel(
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"in_progress"}`)),
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed","evidence":"v2.0 is on the releases page"}`)),
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed"}`)),
				)
				mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, RequireEvidence: true})
				require.NoError(t, err)
				results := toolResults(runAgent(t, doer, mw))
				require.Len(t, results, 3)
				review, _ := resultField(t, results[1], "review").(string)
				assert.Contains(t, review, map[string]string{"en": "review", "zh": "复核"}[lg.name])
				code, msg := errorMessage(t, results[2])
				assert.Equal(t, plan.CodeIllegalTransition, code)
				assert.Contains(t, msg, map[string]string{"en": "review", "zh": "复核"}[lg.name])

				p, err := store.Get(ctx, "release")
				require.NoError(t, err)
				st := plan.ParseSteps(p.Content)[1]
				assert.Equal(t, plan.StepInProgress, st.State)
				assert.True(t, st.AwaitingReview)
				assert.Equal(t, "worker-1", st.DoneBy)
				assert.Equal(t, "", st.Holder)
				assert.Equal(t, "v2.0 is on the releases page", st.Evidence)

				reviewer := plantest.NewScriptedModel(
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed"}`)),
				)
				mw2, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-2", Language: lg.lang, RequireEvidence: true})
				require.NoError(t, err)
				results = toolResults(runAgent(t, reviewer, mw2))
				require.Len(t, results, 1)
				assert.Equal(t, "", errorCode(t, results[0]), results[0])
				p, err = store.Get(ctx, "release")
				require.NoError(t, err)
				st = plan.ParseSteps(p.Content)[1]
				assert.Equal(t, plan.StepCompleted, st.State)
				assert.False(t, st.AwaitingReview)
				assert.True(t, strings.HasSuffix(st.Text, "(reviewed by @worker-2)"), st.Text)
				assert.Equal(t, "v2.0 is on the releases page", st.Evidence)
			})
		}
	}
}

// A person completes a step awaiting review through the Store, and completes a step asking
// for review directly: only agents' completions wait for review.
func TestAPersonCompletesAReview(t *testing.T) {
	for bname, backend := range proofBackends(t) {
		t.Run(bname, func(t *testing.T) {
			ctx := context.Background()
			store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
			require.NoError(t, err)
			_, err = store.Put(ctx, plan.Update{Name: "release", Content: &[]string{"- [ ] Ship (review)\n- [ ] Tell (review)\n"}[0]})
			require.NoError(t, err)
			mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1"})
			require.NoError(t, err)
			m := plantest.NewScriptedModel(
				billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)),
				billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed"}`)),
			)
			runAgent(t, m, mw)
			_, st, err := store.MoveStep(plan.WithActor(ctx, "alice"), plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted})
			require.NoError(t, err)
			assert.Equal(t, plan.StepCompleted, st.State)
			assert.Regexp(t, `^Ship \(review\) \(@worker-1\) — cost: 1000\+50 tokens, 1 call, 1 tool, \d+s \(reviewed by @alice\)$`, st.Text)
			_, st, err = store.MoveStep(plan.WithActor(ctx, "alice"), plan.StepMove{Name: "release", Step: 2, State: plan.StepCompleted})
			require.NoError(t, err)
			assert.Equal(t, plan.StepCompleted, st.State)
			assert.False(t, st.AwaitingReview)
		})
	}
}
