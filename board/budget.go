package board

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/einoplan/plan"
)

// budgetBody is what the page sends to raise a budget: the step (0: the whole plan), the
// budget ("20k tokens", "10m" or both), and optionally the revision it showed.
type budgetBody struct {
	Step     int    `json:"step"`
	Budget   string `json:"budget"`
	Revision int64  `json:"revision"`
}

// raiseBudget sets what a step, or the whole plan, may cost, as the person (Store.Put with
// Update.Budget and Update.BudgetStep): a person's decision that keeps the plan's approval,
// so a step over its budget can use its gated tools again. With a revision, only while the
// plan is still at it.
func (b *board) raiseBudget(w http.ResponseWriter, r *http.Request, person string) {
	var a budgetBody
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		writeError(w, badRequest("the body must be a JSON object such as {\"step\": 2, \"budget\": \"20k tokens\"}"))
		return
	}
	if a.Step < 0 || a.Revision < 0 {
		writeError(w, badRequest("step is a step number from 1, or 0 for the whole plan; revision a number from 1"))
		return
	}
	a.Budget = strings.TrimSpace(a.Budget)
	if a.Budget == "" {
		writeError(w, &apiError{status: http.StatusBadRequest, Code: "budget_required", Message: "say what it may cost: budget such as \"20k tokens\", \"10m\" or both"})
		return
	}
	name := r.PathValue("name")
	ctx := plan.WithActor(r.Context(), person)
	u := plan.Update{Name: name, Budget: a.Budget, BudgetStep: a.Step}
	if a.Revision > 0 {
		u.IfRevision = &a.Revision
	}
	if _, err := b.store.Put(ctx, u); err != nil {
		writeError(w, storeError(err))
		return
	}
	b.answer(w, ctx, name, true)
}
