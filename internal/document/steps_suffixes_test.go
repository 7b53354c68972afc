package document

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// suffixesOf is what readSuffixes reads from text.
func suffixesOf(text string) Step {
	s := Step{Text: text}
	readSuffixes(&s)
	return s
}

// assertSuffixes asserts that text reads as want's suffixes.
func assertSuffixes(t *testing.T, want Step, text string) {
	t.Helper()
	s := suffixesOf(text)
	assert.Equal(t, want.After, s.After, text)
	assert.Equal(t, want.Uses, s.Uses, text)
	assert.Equal(t, want.Review, s.Review, text)
	assert.Equal(t, want.Budget, s.Budget, text)
}

// permutations are every order of items.
func permutations(items []string) [][]string {
	if len(items) <= 1 {
		return [][]string{items}
	}
	var out [][]string
	for i, first := range items {
		rest := append(append([]string{}, items[:i]...), items[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]string{first}, p...))
		}
	}
	return out
}

// Every suffix is read in every order with the others, whatever own text, holder tag,
// notes and marks come with them.
func TestSuffixesReadInEveryOrder(t *testing.T) {
	groups := []string{"(after 3, 1)", "(uses write_file, deploy_prod)", "(review)", "(budget 20k tokens, 10m)"}
	heads := []string{"Ship", "Ship v2 — the web part", "(see docs) Ship", ""}
	tails := []string{"", " (@w1)", " (@)", " — shipped", " (@w1) — a — b (uses other)", "  — note (done by @w1, awaiting review)", " — evidence: ok (reviewed by @ana)"}
	orders := permutations(groups)
	require.Len(t, orders, 24)
	for _, order := range orders {
		for _, head := range heads {
			for _, tail := range tails {
				text := strings.TrimPrefix(head+" "+strings.Join(order, " ")+tail, " ")
				want := Step{After: []int{1, 3}, Uses: []string{"deploy_prod", "write_file"}, Review: true,
					Budget: &Budget{Tokens: 20000, Time: 10 * time.Minute}}
				if strings.Contains(tail, "(uses other)") {
					want.After, want.Uses = nil, []string{"other"} // the last run of their family
				}
				assertSuffixes(t, want, text)
			}
		}
	}
}

// Groups that do not read are skipped; text that is no group ends the run.
func TestSuffixesThatDoNotRead(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Step
	}{
		{"Ship", Step{}},
		{"Ship (after) (after x) (after 1,) (after 123456789) (after -1)", Step{}},
		{"Ship (uses) (uses deploy prod) (uses a,,b) (uses a, (b)", Step{}},
		{"Ship (reviewed) (review me) (Review) (review )", Step{}},
		{"Ship (budget) (budget lots) (budget 20k) (budget 0m) (budget 20k tokens, soon) (budget -1m)", Step{}},
		{"Ship (after 2) (uses a) (review) (budget 1m) then more", Step{}},
		{"Ship (review) (a) b)", Step{}},
		{"Ship (review)) (uses a)", Step{Uses: []string{"a"}}},
		{"Ship (uses " + strings.Repeat("x", maxToolNameLen+1) + ")", Step{}},
		{"Ship (uses " + strings.Repeat("x", maxToolNameLen) + ")", Step{Uses: []string{strings.Repeat("x", maxToolNameLen)}}},
		{"Ship (uses a\x01b) (uses a\xffb) (uses a\u00a0b)", Step{}},
		{"Ship (after 99999999)", Step{After: []int{maxAfterStep + 1}}},
		{"Ship (after steps 3,1, 3) (after step 2)", Step{After: []int{1, 2, 3}}},
		{"Ship (uses b) (unknown) (uses a, b)", Step{Uses: []string{"a", "b"}}},
		{"Ship (budget 10m) (budget 1k tokens)", Step{Budget: &Budget{Time: 10 * time.Minute}}},
		{"Ship (budget 1.5m tokens)", Step{Budget: &Budget{Tokens: 1500000}}},
		{"Ship (review) ", Step{Review: true}},
		{"Ship (after 1)  (uses a)   — note", Step{After: []int{1}, Uses: []string{"a"}}},
		{"Ship (review)" + strings.Repeat(" (x)", 1000), Step{Review: true}},
	} {
		assertSuffixes(t, tc.want, tc.text)
	}
}

// Each family comes from the last run, looking before each " — " from the end, that has
// one of its kinds; the other family may come from another run.
func TestSuffixFamiliesAreReadFromTheirOwnRun(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Step
	}{
		{"Ship (after 1) — note (review)", Step{After: []int{1}, Review: true}},
		{"Ship (after 1) (review) — ok (uses a)", Step{Uses: []string{"a"}, Review: true}},
		{"Ship (uses a) (budget 1m) — ok (review)", Step{Uses: []string{"a"}, Review: true}},
		{"Ship (uses a) — ok (after 2) — more", Step{After: []int{2}}},
		{"Ship (review) — (budget 1m) — done (@w1)", Step{Budget: &Budget{Time: time.Minute}}},
	} {
		assertSuffixes(t, tc.want, tc.text)
	}
}

// kindExamples has one group of every kind of suffixKinds, by keyword.
var kindExamples = map[string]string{
	"after ":  "(after 1)",
	"uses ":   "(uses deploy_prod)",
	"proof ":  "(proof run_tests)",
	"review":  "(review)",
	"budget ": "(budget 10m)",
}

// Every kind of the table reads alone, from a step line as ParseSteps and AfterOf see it,
// and a note ending like it is refused for its own reason: the table is the one reader.
func TestEveryKindReadsAlone(t *testing.T) {
	var zero Step
	for i, k := range suffixKinds {
		for j, other := range suffixKinds {
			if i != j {
				assert.False(t, strings.HasPrefix(k.keyword, other.keyword), "%q starts with %q", k.keyword, other.keyword)
			}
		}
		example, ok := kindExamples[k.keyword]
		require.True(t, ok, "no example of %q", k.keyword)
		steps := ParseSteps("- [ ] a\n- [ ] Do " + example + "\n")
		require.Len(t, steps, 2)
		for _, other := range suffixKinds {
			assert.Equal(t, other.keyword == k.keyword, !other.same(&steps[1], &zero), "%q read from %q", other.keyword, example)
		}
		if k.keyword == "after " {
			assert.Equal(t, steps[1].After, AfterOf(steps[1].Text))
		}

		_, _, err := setStepState("- [ ] a\n- [ ] Do\n", 2, StepInProgress, "see "+example)
		var e *Error
		require.True(t, errors.As(err, &e), "%q: %v", example, err)
		assert.Equal(t, CodeInvalidArgument, e.Code)
		assert.Equal(t, k.noteReason, e.Reason, example)
		_, moved, err := setStepState("- [ ] a\n- [ ] Do "+example+"\n", 2, StepInProgress, "see "+example)
		require.NoError(t, err, "a note that leaves %q as it was", example)
		assert.True(t, k.same(&moved, &steps[1]))
	}
}

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
