package board

import (
	"strings"

	"github.com/einoplan/plan"
)

// stepView is one checklist step as the page shows it: its text without the holder tag,
// and the holder apart.
type stepView struct {
	Number int            `json:"number"`
	State  plan.StepState `json:"state"`
	Text   string         `json:"text"`
	Holder string         `json:"holder,omitempty"`
	Depth  int            `json:"depth,omitempty"`
}

// stepsOf lists the steps of a plan body, as the Store reads them.
func stepsOf(body string) []stepView {
	steps := plan.ParseSteps(body)
	out := make([]stepView, 0, len(steps))
	for _, s := range steps {
		text := s.Text
		if s.Holder != "" {
			text = strings.TrimSuffix(text, " (@"+s.Holder+")")
		}
		out = append(out, stepView{Number: s.Number, State: s.State, Text: text, Holder: s.Holder, Depth: s.Depth})
	}
	return out
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
