package api

import (
	"strings"
	"testing"
)

// A holder tag is read only when it names a name the Store could have written; the text
// before it is what the step says.
func TestSplitHolderReadsOnlyTagsTheStoreWrites(t *testing.T) {
	for _, c := range []struct{ text, rest, holder string }{
		{"Build (@worker-1)", "Build", "worker-1"},
		{"Build (@worker 1)", "Build", "worker 1"},
		{"(@solo)", "", "solo"},
		{"Build (@)", "Build (@)", ""},
		{"Build (@a(b)", "Build (@a(b)", ""},
		{"Build (@%zz)", "Build (@%zz)", ""},
		{"Build (@" + strings.Repeat("n", MaxHolderLen+1) + ")", "Build (@" + strings.Repeat("n", MaxHolderLen+1) + ")", ""},
		{"Build", "Build", ""},
	} {
		rest, holder := SplitHolder(c.text)
		if rest != c.rest || holder != c.holder {
			t.Errorf("SplitHolder(%q) = %q, %q; want %q, %q", c.text, rest, holder, c.rest, c.holder)
		}
	}
}

// WithoutHolder drops only the tag of the step's own holder.
func TestWithoutHolderDropsOnlyTheHoldersTag(t *testing.T) {
	held := Step{State: StepInProgress, Text: "Deploy (uses deploy_prod) (@w1)", Holder: "w1"}
	if got := held.WithoutHolder(); got != "Deploy (uses deploy_prod)" {
		t.Errorf("held: %q", got)
	}
	free := Step{State: StepPending, Text: "Deploy (@w1)"}
	if got := free.WithoutHolder(); got != free.Text {
		t.Errorf("a step nobody holds keeps its text: %q", got)
	}
}

// TotalCost adds every count of the steps that carry a cost and is nil when none does; its
// String is the form a step's line carries.
func TestTotalCostAddsTheStepsThatSayWhatTheyCost(t *testing.T) {
	if TotalCost([]Step{{Number: 1}}) != nil {
		t.Fatal("no step carries a cost: want nil")
	}
	steps := []Step{
		{Number: 1, Cost: &StepCost{PromptTokens: 1000, CompletionTokens: 100, ModelCalls: 2, ToolCalls: 1, Seconds: 30}},
		{Number: 2},
		{Number: 3, Cost: &StepCost{PromptTokens: 200, CompletionTokens: 40, ModelCalls: 2, NoUsage: 1, ToolCalls: 3, Seconds: 11}},
	}
	got := TotalCost(steps)
	want := StepCost{PromptTokens: 1200, CompletionTokens: 140, ModelCalls: 4, NoUsage: 1, ToolCalls: 4, Seconds: 41}
	if got == nil || *got != want {
		t.Fatalf("TotalCost = %+v, want %+v", got, want)
	}
	if s := got.String(); s != "1200+140 tokens, 4 calls (1 without usage), 4 tools, 41s" {
		t.Errorf("String() = %q", s)
	}
	if s := (StepCost{ModelCalls: 1, NoUsage: 1, ToolCalls: 1, Seconds: 2}).String(); s != "1 call (1 without usage), 1 tool, 2s" {
		t.Errorf("no usage at all, one of each: %q", s)
	}
}
