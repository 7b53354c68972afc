package board

import (
	"testing"

	"github.com/einoplan/plan"
)

// A step a run proved shows what the host observed apart from its text and apart from the
// evidence the agent typed, and the tools that prove it.
func TestAStepShowsWhatWasObservedApartFromTypedEvidence(t *testing.T) {
	line := "- [x] Fix the parser (uses edit_file) (proof run_tests) (@coder) — observed: run_tests passed 12:03:04Z — cost: 1 call, 2 tools, 3s — evidence: observed: it passed\n"
	v := stepViewOf(plan.ParseSteps(line)[0])
	if v.Text != "Fix the parser (uses edit_file) (proof run_tests)" || v.By != "coder" {
		t.Errorf("text %q by %q", v.Text, v.By)
	}
	if v.Observed != "run_tests passed 12:03:04Z" || v.Evidence != "observed: it passed" {
		t.Errorf("observed %q evidence %q", v.Observed, v.Evidence)
	}
	if len(v.Proof) != 1 || v.Proof[0] != "run_tests" {
		t.Errorf("proof %v", v.Proof)
	}
}
