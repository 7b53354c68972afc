package board

import (
	"net/http"
	"strconv"

	"github.com/einoplan/plan"
)

// completeReview completes a step that awaits review (its doer's completion of a step
// asking for "(review)"), as the person acting, only while the plan is still at the
// revision the page showed.
func (b *board) completeReview(w http.ResponseWriter, r *http.Request, person string) {
	a, e := readAction(r)
	if e != nil {
		writeError(w, e)
		return
	}
	ctx, name, step, ok := b.stepShown(w, r, person, a.Revision)
	if !ok {
		return
	}
	if !step.AwaitingReview {
		writeError(w, &apiError{status: http.StatusConflict, Code: "not_awaiting_review", Message: "step " + strconv.Itoa(step.Number) + " does not await review"})
		return
	}
	rev := a.Revision
	if _, _, err := b.store.MoveStep(ctx, plan.StepMove{Name: name, Step: step.Number, State: plan.StepCompleted, IfRevision: &rev}); err != nil {
		writeError(w, storeError(err))
		return
	}
	b.answer(w, ctx, name, true)
}
