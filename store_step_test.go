package plan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// TakeOverStep with no holder releases the step, whoever the context says acts.
func TestTakeOverWithNoHolderReleasesTheStep(t *testing.T) {
	s, _ := newTeamStore(t, plan.StoreConfig{})
	_, _, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, By: "w1"})
	require.Nil(t, perr)
	_, step, err := s.TakeOverStep(plan.WithActor(context.Background(), "alice"), "team", 1, "")
	require.NoError(t, err)
	assert.Empty(t, step.Holder)
	assert.Equal(t, "design", step.Text)
}
