package plan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A lean worker's model sees only update_plan_step and read_plan of the plan tools; it takes
// and finishes steps with every guard on (the gate, evidence), and a call to another plan
// tool is tool_not_available, in its language.
func TestALeanWorkerTakesAndFinishesStepsWithEveryGuard(t *testing.T) {
	for _, lg := range proofLanguages {
		for bname, backend := range proofBackends(t) {
			t.Run(lg.name+"/"+bname, func(t *testing.T) {
				ctx := context.Background()
				store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
				require.NoError(t, err)
				body := "# Release\n- [ ] Build the binaries (uses probe)\n- [ ] Publish the release (review)\n"
				p, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
				require.NoError(t, err)
				_, err = store.Approve(ctx, "release", p.Revision, "alice")
				require.NoError(t, err)
				m := plantest.NewScriptedModel(
					billed(plantest.CallTool("probe", `{"what":"early"}`)),
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","status":"in_progress"}`)),
					billed(plantest.CallTool("probe", `{"what":"build"}`)),
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed"}`)),
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"make exit 0"}`)),
					billed(plantest.CallTool(plan.ToolWritePlan, `{"name":"release","content":"- [x] all done"}`)),
				)
				mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, LeanWorker: true,
					GatedTools: []string{"probe"}, RequireEvidence: true})
				require.NoError(t, err)
				results := toolResultsOf(t, runWorker(t, m, false, mw))
				require.Len(t, results, 6)
				assert.Equal(t, string(plan.CodeNotApproved), errorCode(t, results[0]), "the gate holds: no step taken yet")
				assert.Equal(t, "", errorCode(t, results[1]), results[1])
				assert.Equal(t, "ok", results[2])
				assert.Equal(t, string(plan.CodeEvidenceRequired), errorCode(t, results[3]))
				assert.Equal(t, "", errorCode(t, results[4]), results[4])
				code, msg := errorMessage(t, results[5])
				assert.Equal(t, plan.CodeToolNotAvailable, code)
				assert.Contains(t, msg, map[string]string{"en": "only take and finish steps", "zh": "只负责领取和完成步骤"}[lg.name])

				for _, call := range m.Calls() {
					assert.ElementsMatch(t, []string{"probe", plan.ToolUpdatePlanStep, plan.ToolReadPlan}, call.ToolNames())
				}
				cur, err := store.Get(ctx, "release")
				require.NoError(t, err)
				st := plan.ParseSteps(cur.Content)[0]
				assert.Equal(t, plan.StepCompleted, st.State)
				assert.Equal(t, "make exit 0", st.Evidence)
			})
		}
	}
}
