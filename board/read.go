package board

import (
	"net/http"
	"strconv"
)

// me says who the request comes from, whether they may act, and whether reading needs a
// sign-in: {"person", "can_act", "read_only", "sign_in_to_read"}.
func (b *board) me(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Person   string `json:"person,omitempty"`
		CanAct   bool   `json:"can_act"`
		ReadOnly bool   `json:"read_only"`
		// SignInToRead: reading the plans needs a signed-in person (WithSignInToRead).
		SignInToRead bool `json:"sign_in_to_read,omitempty"`
	}{ReadOnly: b.cfg.person == nil, SignInToRead: b.cfg.signInToRead}
	if person, err := b.person(r); err == nil {
		out.Person, out.CanAct = person, true
	}
	writeJSON(w, http.StatusOK, out)
}

// onePlan answers GET /api/plans/{name}: the plan with its steps, holders, approval, body
// and kept revisions.
func (b *board) onePlan(w http.ResponseWriter, r *http.Request) {
	d, err := b.detailOf(r.Context(), r.PathValue("name"))
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	writeJSON(w, http.StatusOK, d)
}

// diff answers GET /api/plans/{name}/diff?from=A&to=B: what changed from revision A to B,
// both kept; to defaults to the current revision and from to the one before to.
func (b *board) diff(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	q := r.URL.Query()
	to, err := revisionParam(q.Get("to"))
	if err != nil {
		writeError(w, err)
		return
	}
	from, err := revisionParam(q.Get("from"))
	if err != nil {
		writeError(w, err)
		return
	}
	if to == 0 {
		p, err := b.store.Get(r.Context(), name)
		if err != nil {
			writeError(w, storeError(err))
			return
		}
		to = p.Revision
	}
	if from == 0 {
		from = max(to-1, 1)
	}
	text, derr := b.store.Diff(r.Context(), name, from, to)
	if derr != nil {
		writeError(w, storeError(derr))
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Name string `json:"name"`
		From int64  `json:"from"`
		To   int64  `json:"to"`
		Diff string `json:"diff"`
	}{name, from, to, text})
}

// revisionParam reads an optional revision: "" is 0, anything else must be a number from 1.
func revisionParam(s string) (int64, *apiError) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return 0, badRequest("a revision is a number from 1, not " + strconv.Quote(s))
	}
	return n, nil
}
