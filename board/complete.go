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
	number, err := strconv.Atoi(r.PathValue("step"))
	if err != nil || number < 1 {
		writeError(w, badRequest("steps are numbered from 1"))
		return
	}
	name := r.PathValue("name")
	ctx := plan.WithActor(r.Context(), person)
	cur, err := b.store.Get(ctx, name)
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	if cur.Revision != a.Revision {
		writeError(w, conflict(name, a.Revision, cur.Revision))
		return
	}
	step, ok := stepAt(stepsOf(cur.Content), number)
	switch {
	case !ok:
		writeError(w, &apiError{status: http.StatusNotFound, Code: "no_such_step", Message: "plan " + name + " has no step " + strconv.Itoa(number)})
		return
	case !step.AwaitingReview:
		writeError(w, &apiError{status: http.StatusConflict, Code: "not_awaiting_review", Message: "step " + strconv.Itoa(number) + " does not await review"})
		return
	}
	rev := a.Revision
	if _, _, err := b.store.MoveStep(ctx, plan.StepMove{Name: name, Step: number, State: plan.StepCompleted, IfRevision: &rev}); err != nil {
		writeError(w, storeError(err))
		return
	}
	b.answer(w, ctx, name, true)
}
