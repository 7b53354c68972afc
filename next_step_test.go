package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// nextPlan has a step that waits for a later one (2 for 4) and one that waits for the first
// (3 for 1), so the next ready step is never simply the next line.
const nextPlan = "# Release\n- [ ] Build\n- [ ] Publish (after 4)\n- [ ] Test (after 1)\n- [ ] Sign\n"

// A move with Next finishes a step and takes the next ready step for the same agent in one
// write: one revision and one history entry per transition; the step taken is the one a move
// of no step number would take on the plan as the finish left it (a step that waited only
// for the finished one is ready, a step waiting for another is passed over); the last
// step completes without an error and takes nothing.
func TestACompletionWithNextHoldsTheNextReadyStepInOneRevision(t *testing.T) {
	for bname, backend := range proofBackends(t) {
		t.Run(bname, func(t *testing.T) {
			ctx := context.Background()
			store := storeOn(t, backend, "")
			body := nextPlan
			_, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
			require.NoError(t, err)
			_, first, err := store.MoveStep(ctx, plan.StepMove{Name: "release", State: plan.StepInProgress, By: "w"})
			require.NoError(t, err)
			require.Equal(t, 1, first.Number)

			at := first.Number
			for _, want := range []int{3, 4, 2} {
				before := historyLen(t, store)
				p, held, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: at, State: plan.StepCompleted, By: "w", Next: true})
				require.NoError(t, err)
				assert.Equal(t, want, held.Number, "after step %d", at)
				assert.Equal(t, plan.StepInProgress, held.State)
				assert.Equal(t, "w", held.Holder)
				assert.Equal(t, plan.StepCompleted, plan.ParseSteps(p.Content)[at-1].State, "step %d finished in the same revision", at)
				assert.Equal(t, before+1, historyLen(t, store), "one history entry")
				at = held.Number
			}
			rev := revisionNow(t, store)
			p, last, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: at, State: plan.StepCompleted, By: "w", Next: true})
			require.NoError(t, err, "the last step completes without an error")
			assert.Equal(t, rev+1, p.Revision)
			assert.Equal(t, at, last.Number)
			assert.Equal(t, plan.StepCompleted, last.State)
			assert.Equal(t, 100, plan.Summarize(p).Progress.Percent)
		})
	}
}

// Next rides with a skip (of a pending step) or a failure too; a failed step is not done, so a step that waits
// for it is passed over. With a move that finishes nothing it is invalid_argument, and
// nothing is written.
func TestNextRidesWithASkipOrAFailure(t *testing.T) {
	for _, tc := range []struct {
		state plan.StepState
		want  int
	}{{plan.StepSkipped, 3}, {plan.StepFailed, 4}} {
		t.Run(string(tc.state), func(t *testing.T) {
			ctx := context.Background()
			store := storeOn(t, plan.NewMemoryBackend(), "")
			body := nextPlan
			_, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
			require.NoError(t, err)
			if tc.state == plan.StepFailed { // a step in progress fails; a pending one is skipped
				_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepInProgress, By: "w"})
				require.NoError(t, err)
			}
			rev := revisionNow(t, store)
			_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepPending, By: "w", Next: true})
			assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err))
			assert.Equal(t, rev, revisionNow(t, store), "nothing written")

			p, held, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: tc.state, By: "w", Next: true})
			require.NoError(t, err)
			assert.Equal(t, rev+1, p.Revision)
			assert.Equal(t, tc.want, held.Number)
			assert.Equal(t, "w", held.Holder)
			assert.Equal(t, tc.state, plan.ParseSteps(p.Content)[0].State)
		})
	}
}

// Through a real agent run: the model completes its step with next: true and, in the same
// call, holds the next ready step; the result names it and the progress, in at most a few
// fields; then it runs a gated tool under that step. On the last step the result says that
// no step is ready, in the model's language, and the run goes on.
func TestAnAgentFinishesAStepAndTakesTheNextInOneCall(t *testing.T) {
	for _, lg := range proofLanguages {
		t.Run(lg.name, func(t *testing.T) {
			ctx := context.Background()
			store := storeOn(t, plan.NewMemoryBackend(), "")
			body := "# Release\n- [ ] Build\n- [ ] Deploy (uses probe)\n"
			p, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
			require.NoError(t, err)
			_, err = store.Approve(ctx, "release", p.Revision, "alice")
			require.NoError(t, err)
			m := plantest.NewScriptedModel(
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","status":"in_progress"}`),
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"go build ok","next":true}`),
				plantest.CallTool("probe", `{"what":"deploy"}`),
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed","evidence":"deployed","next":true}`),
			)
			var costs []plan.CostReport
			mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, GatedTools: []string{"probe"},
				OnCost: func(_ context.Context, r plan.CostReport) { costs = append(costs, r) }})
			require.NoError(t, err)
			before := historyLen(t, store)
			results := toolResultsOf(t, runWorker(t, m, false, mw))
			require.Len(t, results, 4)
			assert.JSONEq(t, `{"revision":4,"step":2,"holder":"worker-1","progress":{"total":2,"in_progress":1,"completed":1,"percent":50}}`, results[1])
			assert.Equal(t, "ok", results[2], "the gated tool ran under the step taken")
			none := map[adk.Language]string{adk.LanguageEnglish: "no step is ready", adk.LanguageChinese: "没有可领取的步骤"}[lg.lang]
			assert.Contains(t, resultField(t, results[3], "next"), none, results[3])
			assert.EqualValues(t, 2, resultField(t, results[3], "step"))
			assert.Equal(t, before+3, historyLen(t, store), "one entry per call: take, complete-and-take, complete")
			require.Len(t, costs, 2, "each finished step's cost is reported once")
			assert.Equal(t, 1, costs[0].Step)
			assert.Equal(t, 2, costs[1].Step)
		})
	}
}

// The instruction teaches the ride-along in both languages, for the full set and the lean
// worker: finish a step and take the next in the message of the next work call.
func TestTheInstructionTeachesTheRideAlong(t *testing.T) {
	ctx := context.Background()
	for _, lean := range []bool{false, true} {
		for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
			mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), AgentName: "w", LeanWorker: lean, Language: lang})
			require.NoError(t, err)
			_, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{})
			require.NoError(t, err)
			assert.Contains(t, rc.Instruction, "next: true", "lean %v, language %v", lean, lang)
			found := false
			for _, bt := range rc.Tools {
				info, err := bt.Info(ctx)
				require.NoError(t, err)
				if info.Name != plan.ToolUpdatePlanStep {
					continue
				}
				js, err := info.ParamsOneOf.ToJSONSchema()
				require.NoError(t, err)
				next, ok := js.Properties.Get("next")
				require.True(t, ok)
				found = strings.TrimSpace(next.Description) != ""
			}
			assert.True(t, found, "update_plan_step describes next")
		}
	}
}

func historyLen(t *testing.T, store *plan.Store) int {
	t.Helper()
	revs, err := store.History(context.Background(), "release")
	require.NoError(t, err)
	return len(revs)
}

func revisionNow(t *testing.T, store *plan.Store) int64 {
	t.Helper()
	p, err := store.Get(context.Background(), "release")
	require.NoError(t, err)
	return p.Revision
}
