package document

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
		steps := ParseSteps(tc.body)
		require.Len(t, steps, 1)
		assert.Equal(t, tc.holder, steps[0].Holder, tc.body)
	}
	assert.Equal(t, "Research Agent %28x%29", HolderName("Research Agent (x)"))
}

// A step its holder completes into review is held by nobody, and its line says so: the
// holder's tag goes, and the review mark names who did it; the review's completion keeps
// no tag either.
func TestAStepAwaitingReviewCarriesNoHolderTag(t *testing.T) {
	body, st, err := SetStep("- [ ] Ship (review)\n", 1, StepInProgress, "", StepHold{By: "worker"})
	require.NoError(t, err)
	assert.Equal(t, "worker", st.Holder)
	body, st, err = SetStep(body, 1, StepCompleted, "pushed", StepHold{By: "worker", Evidence: "v2 tagged", Review: ReviewInto})
	require.NoError(t, err)
	assert.Equal(t, "- [~] Ship (review) — pushed — evidence: v2 tagged (done by @worker, awaiting review)\n", body)
	assert.Equal(t, "", st.Holder)
	assert.True(t, st.AwaitingReview)
	assert.Equal(t, "worker", st.DoneBy)
	assert.Equal(t, "v2 tagged", st.Evidence)
	assert.Equal(t, st.Text, st.WithoutHolder())
	body, st, err = SetStep(body, 1, StepCompleted, "", StepHold{By: "ana", Review: ReviewDone, Reviewer: "ana"})
	require.NoError(t, err)
	assert.Equal(t, "- [x] Ship (review) — pushed — evidence: v2 tagged (reviewed by @ana)\n", body)
	assert.Equal(t, "v2 tagged", st.Evidence)
}
