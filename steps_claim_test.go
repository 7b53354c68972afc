package plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// A note cannot make up a holder, and a step with no text of its own is held all the same.
func TestHolderTagsComeOnlyFromTheHolder(t *testing.T) {
	s, _ := newTeamStore(t, plan.StoreConfig{})
	_, _, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, Note: "ask (@boss)"})
	require.NotNil(t, perr)
	assert.Equal(t, "note_tag", perr.Reason)
	_, _, perr = move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, Note: "ask (@boss)", By: "w1"})
	require.NotNil(t, perr, "not even before the mover's own tag, which a release takes away")
	assert.Equal(t, "note_tag", perr.Reason)

	bare := plan.ParseSteps("- [~] (@w1)\n")
	require.Len(t, bare, 1)
	assert.Equal(t, "w1", bare[0].Holder)
}
