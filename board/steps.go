package board

import (
	"strings"
	"time"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
)

// stepView is one checklist step as the page shows it: its text without the holder tag,
// and the holder apart.
type stepView struct {
	Number int            `json:"number"`
	State  plan.StepState `json:"state"`
	Text   string         `json:"text"`
	Holder string         `json:"holder,omitempty"`
	// By is who held the step before it ended (completed, failed, skipped), as the tag
	// its line kept says; "" when none does.
	By    string `json:"by,omitempty"`
	Depth int    `json:"depth,omitempty"`
	// Cut reports that Text was cut short to bound the answer; the plan's body has it whole.
	Cut bool `json:"cut,omitempty"`
	// Uses are the gated tools the step may use, as its "(uses …)" names them (plan.Step.Uses):
	// what a person approving the plan lets it do.
	Uses []string `json:"uses,omitempty"`
	// After lists the steps this one waits for, as its "(after …)" says.
	After []int `json:"after,omitempty"`
	// HeldUntil is when the holder's lease on a step in progress runs out unless renewed
	// (StoreConfig.HoldTTL); nil without a lease.
	HeldUntil *time.Time `json:"held_until,omitempty"`
	// Proof are the tools whose passing run proves the step done, as its "(proof …)" names
	// them (plan.Step.Proof).
	Proof []string `json:"proof,omitempty"`
	// Evidence is what its completion said shows the step done, apart from its text: what the
	// agent typed.
	Evidence string `json:"evidence,omitempty"`
	// Observed is the run the host saw prove the step (plan.Step.Observed), apart from its
	// text: written only by the Store, and shown apart from typed evidence.
	Observed string `json:"observed,omitempty"`
	// AwaitingReview: done by DoneBy and waiting for someone else to complete it.
	AwaitingReview bool   `json:"awaiting_review,omitempty"`
	DoneBy         string `json:"done_by,omitempty"`
	// Cost is what the step cost while an agent held it, apart from its text.
	Cost *plan.StepCost `json:"cost,omitempty"`
	// Review and Budget are what its "(review)" and "(budget …)" ask (plan.Step).
	Review bool        `json:"review,omitempty"`
	Budget *api.Budget `json:"budget,omitempty"`
	// OverBudget: the cost its line records went over its own budget (plan.Step.OverBudget).
	OverBudget bool `json:"over_budget,omitempty"`
}

// stepsOf lists the steps of a plan body, as the Store reads them.
func stepsOf(body string) []stepView {
	return viewsOf(plan.ParseSteps(body))
}

// viewsOf is steps as the page shows them.
func viewsOf(steps []plan.Step) []stepView {
	out := make([]stepView, 0, len(steps))
	for _, s := range steps {
		out = append(out, stepViewOf(s))
	}
	return out
}

// stepViewOf is step s as the page shows it: the holder's tag (or the tag of who held it)
// apart from the text.
func stepViewOf(s plan.Step) stepView {
	v := stepView{Number: s.Number, State: s.State, Text: s.Text, Holder: s.Holder, Depth: s.Depth, Uses: s.Uses, After: s.After}
	v.Evidence, v.AwaitingReview, v.DoneBy, v.Cost = s.Evidence, s.AwaitingReview, s.DoneBy, s.Cost
	v.Proof, v.Observed, v.OverBudget = s.Proof, s.Observed, s.OverBudget
	v.Review, v.Budget = s.Review, s.Budget
	if before, _, found := cutLast(s.Text, " — evidence: "); found && s.Evidence != "" {
		s.Text = before // shown apart
	}
	if before, _, found := cutLast(s.Text, " — cost: "); found && s.Cost != nil {
		s.Text = before // shown apart
	}
	if before, _, found := cutLast(s.Text, " — observed: "); found && s.Observed != "" {
		s.Text = before // shown apart
	}
	text, tag, ok := cutTag(s.Text)
	switch {
	case ok && s.State == plan.StepInProgress && tag == s.Holder:
		v.Text = text // the holder's tag, or the mark of a step nobody holds
	case ok && s.State != plan.StepInProgress && s.State != plan.StepPending && tag != "":
		v.Text, v.By = text, tag
	case s.Evidence != "" || s.Cost != nil || s.Observed != "":
		v.Text = s.Text
	}
	return v
}

// cutTag splits the " (@name)" tag that ends a step's line from its text, as the Store reads
// it (api.SplitHolder); name is "" for " (@)", the mark of a step in progress that nobody
// holds. ok is false when the text ends in neither. The page shows the text and the name apart.
func cutTag(text string) (rest, name string, ok bool) {
	if rest, found := strings.CutSuffix(text, " (@)"); found {
		return rest, "", true
	}
	rest, name = api.SplitHolder(text)
	return rest, name, name != ""
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// stepAt returns step number of steps; false when there is none.
func stepAt(steps []stepView, number int) (stepView, bool) {
	for _, s := range steps {
		if s.Number == number {
			return s, true
		}
	}
	return stepView{}, false
}
