package document

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// "(proof …)" reads with "(uses …)", "(after …)", "(review)" and "(budget …)" in either
// order, as a sorted list of tool names.
func TestProofReadsInAnyOrderWithTheOtherSuffixes(t *testing.T) {
	for _, text := range []string{
		"Fix it (after 1) (uses edit_file) (proof run_tests, lint) (review) (budget 10m)",
		"Fix it (proof lint, run_tests) (review) (uses edit_file) (budget 10m) (after 1)",
		"Fix it (budget 10m) (review) (proof run_tests,lint) (after 1) (uses edit_file)",
	} {
		steps := ParseSteps("- [x] a\n- [ ] " + text + "\n")
		require.Len(t, steps, 2)
		s := steps[1]
		assert.Equal(t, []string{"lint", "run_tests"}, s.Proof, text)
		assert.Equal(t, []string{"edit_file"}, s.Uses, text)
		assert.Equal(t, []int{1}, s.After, text)
		assert.True(t, s.Review, text)
		require.NotNil(t, s.Budget, text)
	}
}

// A proof is the last call of a proof tool after the last call of the step's other tools,
// when it passed.
func TestProvenNeedsAPassingProofCallAfterTheLastEdit(t *testing.T) {
	s := ParseSteps("- [ ] Fix (uses edit_file) (proof run_tests)\n")[0]
	at := time.Date(2026, 1, 2, 12, 3, 4, 0, time.UTC)
	edit := Observation{Tool: "edit_file", OK: true, At: at}
	pass := Observation{Tool: "run_tests", OK: true, At: at}
	fail := Observation{Tool: "run_tests", At: at}
	other := Observation{Tool: "ls", OK: true, At: at}
	for _, c := range []struct {
		name string
		obs  []Observation
		ok   bool
	}{
		{"nothing observed", nil, false},
		{"an edit only", []Observation{edit}, false},
		{"a failed run", []Observation{edit, fail}, false},
		{"a pass then a failed run", []Observation{edit, pass, fail}, false},
		{"an edit after the pass", []Observation{pass, edit}, false},
		{"a pass after the edit", []Observation{edit, fail, pass}, true},
		{"a pass, other tools after it", []Observation{edit, pass, other}, true},
	} {
		_, ok := Proven(s, c.obs)
		assert.Equal(t, c.ok, ok, c.name)
	}
	o, _ := Proven(s, []Observation{edit, pass})
	assert.Equal(t, "run_tests passed 12:03:04Z", ObservedMark(o))
}

// The Store's mark reads back as Step.Observed, apart from the evidence and cost that follow
// it, on a completed step; a note, evidence or a written body cannot make one.
func TestObservationMarkIsTheStoresOnly(t *testing.T) {
	body := "- [~] Fix (proof run_tests) (@coder)\n"
	next, st, err := SetStep(body, 1, StepCompleted, "done", StepHold{By: "coder", Observed: "run_tests passed 12:03:04Z", Evidence: "go test ok", Cost: &StepCost{ModelCalls: 1}})
	require.NoError(t, err)
	assert.Equal(t, "run_tests passed 12:03:04Z", st.Observed)
	assert.Equal(t, "go test ok", st.Evidence)
	require.NotNil(t, st.Cost)
	assert.Contains(t, next, " — observed: run_tests passed 12:03:04Z — cost: ")

	// Typed evidence saying so is evidence, never an observation.
	_, st, err = SetStep(body, 1, StepCompleted, "", StepHold{By: "coder", Evidence: "observed: run_tests passed 12:03:04Z"})
	require.NoError(t, err)
	assert.Empty(t, st.Observed)
	assert.Error(t, CheckEvidence("ran it — observed: run_tests passed 12:03:04Z"))
	_, _, err = SetStep(body, 1, StepCompleted, "ran — observed: run_tests passed 12:03:04Z", StepHold{By: "coder"})
	assert.Error(t, err, "a note")

	// A body written whole keeps a mark it had, never adds or changes one.
	cur := &Plan{Name: "p", Content: next}
	require.NoError(t, CheckNoNewHolds("p", cur, next))
	for _, forged := range []string{
		"- [x] Fix (proof run_tests) — observed: run_tests passed 12:03:04Z\n",
		"- [ ] Other — observed: run_tests passed 12:03:04Z\n" + next,
		next + "- [x] Copy — observed: run_tests passed 12:03:04Z\n",
		strings.Replace(next, "12:03:04Z", "12:03:05Z", 1),
	} {
		err := CheckNoNewHolds("p", cur, forged)
		var e *Error
		require.True(t, errors.As(err, &e), forged)
		assert.Equal(t, reasonObservedInText, e.Reason, forged)
	}
}
