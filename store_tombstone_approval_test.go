package plan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// The approval requirement belongs to the plan and outlives its deletion: an agent whose
// middleware does not ask for approvals deletes a plan written under the requirement and
// writes it again, and the plan it wrote still needs a person's approval before a step moves
// or a rewrite finishes one.
func TestTheApprovalRequirementSurvivesADeleteAndRecreate(t *testing.T) {
	for _, bc := range backendCases() {
		t.Run(bc.name, func(t *testing.T) {
			ctx := context.Background()
			backend, _ := bc.new(t)
			host := approvedUnderRequirement(t, backend)
			lax, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "deployer"})
			require.NoError(t, err)
			done := "# Release\n- [x] Run the security review\n- [ ] Deploy to production (after 1)\n- [ ] Tell the team\n"
			results := runTools(t, plantest.NewScriptedModel(
				plantest.CallTool("delete_plan", `{"name":"release"}`),
				writePlanCall("release", done, 0),
				writePlanCall("release", reviewedRelease, 0),
				plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"skipped"}`),
				plantest.Answer("deployed"),
			), lax)
			require.Len(t, results, 4)
			assert.Empty(t, errorCode(t, results[0]), results[0])
			assert.Equal(t, "not_approved", errorCode(t, results[1]), "a create cannot finish a step: %s", results[1])
			assert.Empty(t, errorCode(t, results[2]), results[2])
			assert.Equal(t, "not_approved", errorCode(t, results[3]), results[3])

			p, err := host.Get(ctx, "release")
			require.NoError(t, err)
			assert.True(t, p.RequiresApproval)
			assert.Nil(t, p.Approval, "a plan written again is not approved")
			assert.EqualValues(t, 3, p.Revision, "revisions go on after the deletion")
			assert.Equal(t, reviewedRelease, p.Content)
		})
	}
}

// The same through the Store's API, whoever deletes the plan (a named person, or nobody,
// whose delete may move the plan file onto its tombstone) and whoever writes it again.
func TestADeletedPlansTombstoneKeepsItsApprovalRequirement(t *testing.T) {
	for _, bc := range backendCases() {
		for _, deleter := range []string{"", "ana"} {
			t.Run(bc.name+"/"+deleter, func(t *testing.T) {
				ctx := context.Background()
				backend, _ := bc.new(t)
				host := approvedUnderRequirement(t, backend)
				_, err := host.Delete(plan.WithActor(ctx, deleter), "release", nil)
				require.NoError(t, err)

				fresh, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
				require.NoError(t, err)
				p, err := fresh.Put(ctx, plan.Update{Name: "release", Content: ptr(reviewedRelease)})
				require.NoError(t, err)
				assert.True(t, p.RequiresApproval)
				_, _, err = fresh.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepInProgress, By: "w1"})
				assert.Equal(t, plan.CodeNotApproved, plan.CodeOf(err))

				// Deleted again, by anyone: still required.
				_, err = fresh.Delete(ctx, "release", nil)
				require.NoError(t, err)
				p, err = host.Put(ctx, plan.Update{Name: "release", Content: ptr(reviewedRelease)})
				require.NoError(t, err)
				assert.True(t, p.RequiresApproval)
			})
		}
	}
}
