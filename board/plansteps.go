package board

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/einoplan/plan/api"

	"github.com/einoplan/plan"
)

// Bounds of GET /api/plans/{name}/steps: the JSON bytes of the steps a page holds at most,
// and the bytes of one step's text.
const (
	maxStepsPageBytes = 256 << 10
	maxStepTextSize   = 2 << 10
)

// stepsPage is one plan as its card shows it, with a page of its steps: those numbered from
// the request's from, up to maxStepsPageBytes of JSON, each text cut to maxStepTextSize
// bytes. NextFrom, when not 0, is the number of the first step left for the next page.
type stepsPage struct {
	summaryView
	// Rejection is the plan's last rejection, its feedback cut to maxStepTextSize bytes.
	Rejection *api.Rejection    `json:"rejection,omitempty"`
	Steps     []json.RawMessage `json:"steps"`
	NextFrom  int               `json:"next_from,omitempty"`
	// Cost is what all its steps cost together, as their lines say; Budget what the plan may.
	Cost   *plan.StepCost `json:"cost,omitempty"`
	Budget string         `json:"budget,omitempty"`
	// Comments are people's comments on its steps, open and closed (at most api.MaxComments).
	Comments []api.Comment `json:"comments,omitempty"`
}

// planSteps answers GET /api/plans/{name}/steps[?from=N]: the plan's summary and a page of
// its steps, bounded whatever the plan's size. It reads the plan once and no history.
func (b *board) planSteps(w http.ResponseWriter, r *http.Request) {
	from := 1
	if s := r.URL.Query().Get("from"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			writeError(w, badRequest("from is a step number, from 1"))
			return
		}
		from = n
	}
	p, err := b.store.Get(r.Context(), r.PathValue("name"))
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	out := stepsPage{summaryView: summaryOf(plan.Summarize(p)), Steps: []json.RawMessage{}}
	if p.Rejection != nil {
		rej := *p.Rejection
		rej.By, rej.Feedback = cutText(rej.By, maxSummaryTextSize), cutText(rej.Feedback, maxStepTextSize)
		out.Rejection = &rej
	}
	steps := plan.ParseSteps(p.Content)
	out.Cost, out.Budget, out.Comments = api.TotalCost(steps), cutText(p.Budget, maxSummaryTextSize), p.Comments
	out.OverBudget = p.OverBudget // the plan's own: each step says its own
	size := 0
	for _, s := range viewsOf(steps) {
		if s.Number < from {
			continue
		}
		if len(s.Text) > maxStepTextSize {
			s.Text, s.Cut = cutText(s.Text, maxStepTextSize), true
		}
		if s.State == plan.StepInProgress && s.Holder != "" { // each lookup reads the steps again
			if end := b.store.HeldUntil(p, s.Number); !end.IsZero() {
				s.HeldUntil = &end
			}
		}
		data, err := json.Marshal(s)
		if err != nil {
			continue
		}
		if size+len(data)+1 > maxStepsPageBytes && len(out.Steps) > 0 {
			out.NextFrom = s.Number
			break
		}
		size += len(data) + 1
		out.Steps = append(out.Steps, data)
	}
	writeJSON(w, http.StatusOK, out)
}
