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

// Only the last (@name) tag of an in-progress step names its holder; HolderName escapes what a
// tag cannot hold.
func TestHolderTagsReadBack(t *testing.T) {
	for _, tc := range []struct{ body, holder string }{
		{"- [~] build (@w2)\n", "w2"},
		{"- [~] ask (@bob) (@w2)\n", "w2"},
		{"- [~] ask (@bob) — waiting\n", ""},
		{"- [ ] build (@w2)\n", ""},
		{"- [x] build (@w2) — done\n", ""},
		{"- [~] build (@)\n", ""},
		{"- [~] build (@a b)\n", "a b"},
		{"- [~] build (@a\tb)\n", ""},
	} {
		steps := plan.ParseSteps(tc.body)
		require.Len(t, steps, 1)
		assert.Equal(t, tc.holder, steps[0].Holder, tc.body)
	}
	assert.Equal(t, "Research Agent %28x%29", plan.HolderName("Research Agent (x)"))
}
