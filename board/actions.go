package board

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
)

// Bounds of what a person types.
const (
	maxFeedback = 8 << 10
	maxHolder   = 64
)

// actionBody is what the page sends with an action: the revision it showed, and the
// feedback (reject) or the new holder (hand over; "" releases).
type actionBody struct {
	Revision int64   `json:"revision"`
	Feedback string  `json:"feedback"`
	Holder   *string `json:"holder"`
	// Comments, with a rejection, are comments on steps: {"step": 2, "text": "..."}.
	Comments []api.Comment `json:"comments"`
}

// readAction decodes the body of an action; the revision is required.
func readAction(r *http.Request) (actionBody, *apiError) {
	var a actionBody
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, badRequest("the body must be a JSON object such as {\"revision\": 3}")
	}
	if a.Revision < 1 {
		return a, badRequest("revision, the revision the page showed, is required: a number from 1")
	}
	if !utf8.ValidString(a.Feedback) || len(a.Feedback) > maxFeedback {
		return a, badRequest("feedback must be UTF-8 text of at most " + strconv.Itoa(maxFeedback) + " bytes")
	}
	return a, nil
}

// actionResult is the answer to an action: the plan as it is now.
type actionResult struct {
	Plan *planDetail `json:"plan"`
	// Changed is false when nothing needed writing (a step already held by that holder, a
	// rejection of a plan that carried no approval).
	Changed bool `json:"changed"`
}

func (b *board) answer(w http.ResponseWriter, ctx context.Context, name string, changed bool) {
	d, err := b.detailOf(ctx, name)
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	writeJSON(w, http.StatusOK, actionResult{Plan: d, Changed: changed})
}

// approve approves exactly the revision the page showed (Store.Approve), as the person.
func (b *board) approve(w http.ResponseWriter, r *http.Request, person string) {
	a, e := readAction(r)
	if e != nil {
		writeError(w, e)
		return
	}
	b.decide(w, r, person, a, true)
}

// reject turns down the revision the page showed, with feedback (Store.Reject): only while
// the plan is still at that revision. The rejection is kept in the history, a run waiting
// with Store.WaitDecision gets the feedback, an approval the plan carried is withdrawn, and
// the decision goes to OnDecision too.
func (b *board) reject(w http.ResponseWriter, r *http.Request, person string) {
	a, e := readAction(r)
	if e != nil {
		writeError(w, e)
		return
	}
	if strings.TrimSpace(a.Feedback) == "" {
		writeError(w, &apiError{status: http.StatusBadRequest, Code: "feedback_required", Message: "say why the plan is rejected: feedback is required"})
		return
	}
	b.decide(w, r, person, a, false)
}

// decide approves (Store.Approve) or rejects (Store.Reject, with a's feedback) the revision
// the page showed as the person, hands the decision to OnDecision, and answers with the plan.
func (b *board) decide(w http.ResponseWriter, r *http.Request, person string, a actionBody, approved bool) {
	name := r.PathValue("name")
	ctx := plan.WithActor(r.Context(), person)
	var err error
	if approved {
		_, err = b.store.Approve(ctx, name, a.Revision, person)
	} else {
		_, err = b.store.Reject(ctx, name, a.Revision, person, a.Feedback, a.Comments...)
	}
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	b.decided(ctx, Decision{Name: name, Revision: a.Revision,
		ApprovalDecision: plan.ApprovalDecision{Approved: approved, By: person, Feedback: a.Feedback, Comments: a.Comments}})
	b.answer(w, ctx, name, true)
}

// handOver gives a step to the named holder, or releases it ("" holder), with
// Store.TakeOverStep, only while the plan is still at the revision the page showed. The
// check and the takeover are two Store calls: a change landing between them is not
// refused, and the takeover still changes only that step's holder, atomically.
func (b *board) handOver(w http.ResponseWriter, r *http.Request, person string) {
	a, e := readAction(r)
	if e != nil {
		writeError(w, e)
		return
	}
	if a.Holder == nil {
		writeError(w, badRequest("holder is required: a name, or \"\" to release the step"))
		return
	}
	holder := strings.TrimSpace(*a.Holder)
	if !utf8.ValidString(holder) || len(holder) > maxHolder || strings.ContainsAny(holder, "()") || strings.IndexFunc(holder, isSpaceOrControl) >= 0 {
		writeError(w, &apiError{status: http.StatusBadRequest, Code: "bad_holder", Message: "a holder is a name of at most 64 bytes without spaces or parentheses"})
		return
	}
	ctx, name, step, ok := b.stepShown(w, r, person, a.Revision)
	if !ok {
		return
	}
	number := step.Number
	switch {
	case step.State == plan.StepPending && holder == "":
		writeError(w, &apiError{status: http.StatusConflict, Code: "nothing_to_release", Message: "the step is pending: nobody holds it"})
		return
	case step.State == plan.StepInProgress && step.Holder == holder:
		b.answer(w, ctx, name, false)
		return
	}
	if _, _, err := b.store.MoveStep(ctx, plan.StepMove{Name: name, Step: number, State: plan.StepInProgress, By: holder, Takeover: true}); err != nil {
		writeError(w, storeError(err))
		return
	}
	b.answer(w, ctx, name, true)
}

// stepShown is the step of the request's path, as the person acting (ctx) saw it: only
// while the plan is still at the revision the page showed. ok false: the answer is written.
func (b *board) stepShown(w http.ResponseWriter, r *http.Request, person string, rev int64) (ctx context.Context, name string, step stepView, ok bool) {
	number, err := strconv.Atoi(r.PathValue("step"))
	if err != nil || number < 1 {
		writeError(w, badRequest("steps are numbered from 1"))
		return nil, "", stepView{}, false
	}
	name = r.PathValue("name")
	ctx = plan.WithActor(r.Context(), person)
	cur, err := b.store.Get(ctx, name)
	if err != nil {
		writeError(w, storeError(err))
		return nil, "", stepView{}, false
	}
	if cur.Revision != rev {
		writeError(w, conflict(name, rev, cur.Revision))
		return nil, "", stepView{}, false
	}
	if step, ok = stepAt(stepsOf(cur.Content), number); !ok {
		writeError(w, &apiError{status: http.StatusNotFound, Code: "no_such_step", Message: "plan " + name + " has no step " + strconv.Itoa(number)})
	}
	return ctx, name, step, ok
}

func isSpaceOrControl(r rune) bool { return r <= ' ' || r == 0x7f || r == utf8.RuneError }

// decided tells the host about a decision; a panic in its hook does not undo what was
// written, nor fail the answer.
func (b *board) decided(ctx context.Context, d Decision) {
	if b.cfg.onDecision == nil {
		return
	}
	defer func() { _ = recover() }()
	b.cfg.onDecision(ctx, d)
}
