package board

import (
	"net/http"
	"strconv"

	"github.com/einoplan/plan"
)

// Bounds of GET /api/plans.
const (
	defaultListLimit = 200
	maxListLimit     = 1000
)

// me says who the request comes from and whether they may act: {"person", "can_act"}.
func (b *board) me(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Person   string `json:"person,omitempty"`
		CanAct   bool   `json:"can_act"`
		ReadOnly bool   `json:"read_only"`
	}{ReadOnly: b.cfg.person == nil}
	if person, err := b.person(r); err == nil {
		out.Person, out.CanAct = person, true
	}
	writeJSON(w, http.StatusOK, out)
}

// listPlans answers GET /api/plans[?limit=N&cursor=C&status=S]: a page of plans in name
// order, each with its steps and who changed it last, the files that could not be read,
// the number of plans that match, and the cursor of the next page.
func (b *board) listPlans(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := defaultListLimit
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxListLimit {
			writeError(w, badRequest("limit must be a number from 1 to "+strconv.Itoa(maxListLimit)))
			return
		}
		limit = n
	}
	listing, err := b.store.ListPage(r.Context(), plan.ListOptions{Limit: limit, Cursor: q.Get("cursor"), Status: q.Get("status")})
	if err != nil {
		writeError(w, storeError(err))
		return
	}
	type warning struct {
		Name    string    `json:"name"`
		Code    plan.Code `json:"code"`
		Message string    `json:"message"`
	}
	out := struct {
		Plans      []planView `json:"plans"`
		Warnings   []warning  `json:"warnings"`
		Total      int        `json:"total"`
		NextCursor string     `json:"next_cursor,omitempty"`
	}{Plans: make([]planView, 0, len(listing.Plans)), Warnings: []warning{}, Total: listing.Total, NextCursor: listing.NextCursor}
	for _, wn := range listing.Warnings {
		out.Warnings = append(out.Warnings, warning{wn.Name, wn.Code, wn.Message})
	}
	for _, s := range listing.Plans {
		d, err := b.detailOf(r.Context(), s.Name)
		if err != nil {
			if r.Context().Err() != nil {
				writeError(w, storeError(err))
				return
			}
			continue // deleted or broken since the listing: the next change says so
		}
		out.Plans = append(out.Plans, d.planView)
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
