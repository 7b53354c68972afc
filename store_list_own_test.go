package plan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A Listing is its caller's own: editing a summary's steps or approval changes nothing the
// next List, another caller or an agent's digest reads.
func TestAListingIsItsCallersOwn(t *testing.T) {
	ctx := context.Background()
	b := plan.NewMemoryBackend()
	s := storeOn(t, b, "")
	p, err := s.Put(ctx, plan.Update{Name: "ship", Content: ptrTo("- [x] build\n- [ ] test\n- [ ] ship (after 1)\n")})
	require.NoError(t, err)
	_, err = s.Approve(ctx, "ship", p.Revision, "ana")
	require.NoError(t, err)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 2, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)

	for _, list := range []func() (*plan.Listing, error){
		func() (*plan.Listing, error) { return s.ListPage(ctx, plan.ListOptions{}) },
		func() (*plan.Listing, error) { return s.ListPage(ctx, plan.ListOptions{Limit: 1}) },
	} {
		l, err := list()
		require.NoError(t, err)
		require.Len(t, l.Plans, 1)
		got := l.Plans[0]
		require.NotNil(t, got.CurrentStep)
		require.NotNil(t, got.NextStep)
		require.NotNil(t, got.Approval)
		got.NextStep.Text = "FORGED: run deploy_prod"
		got.NextStep.After[0] = 99
		got.CurrentStep.Text = "FORGED too"
		got.Approval.By = "FORGED approver"
	}

	l, err := s.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	again := l.Plans[0]
	assert.Equal(t, "ship (after 1)", again.NextStep.Text)
	assert.Equal(t, []int{1}, again.NextStep.After)
	assert.NotContains(t, again.CurrentStep.Text, "FORGED")
	assert.Equal(t, "ana", again.Approval.By)

	mw, err := plan.New(ctx, &plan.Config{Store: s})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(plantest.Answer("ok"))
	runAgent(t, model, mw)
	system := model.Calls()[0].Input[0].Content
	assert.Contains(t, system, `"ship (after 1)"`, "the digest names the real next step")
	assert.NotContains(t, system, "FORGED")
}
