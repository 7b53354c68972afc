package board

import (
	"encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/einoplan/plan/api"

	"github.com/einoplan/plan"
)

// Bounds of GET /api/plans: how many plans a page holds (default and most), how many bytes
// its plans and its warnings take in JSON at most, and how long a text in a summary may be.
const (
	defaultListLimit   = 200
	maxListLimit       = 1000
	maxListPageBytes   = 256 << 10
	maxListWarnBytes   = 32 << 10
	maxSummaryTextSize = 300
)

// summaryView is one plan in the list: what a card shows before its steps arrive, every
// text cut to maxSummaryTextSize bytes.
type summaryView struct {
	planHeader
	Progress    api.Progress `json:"progress"`
	CurrentStep *stepView    `json:"current_step,omitempty"`
	NextStep    *stepView    `json:"next_step,omitempty"`
	Repaired    bool         `json:"repaired,omitempty"`
}

func summaryOf(s plan.Summary) summaryView {
	v := summaryView{planHeader: planHeader{Name: s.Name, Title: cutText(s.Title, maxSummaryTextSize), Status: cutText(s.Status, maxSummaryTextSize),
		Author: cutText(s.Author, maxSummaryTextSize), Revision: s.Revision, UpdatedAt: s.UpdatedAt, OverBudget: s.OverBudget}, Progress: s.Progress, Repaired: s.Repaired}
	if s.Approval != nil {
		a := *s.Approval
		a.By = cutText(a.By, maxSummaryTextSize)
		v.Approval = &a
	}
	if s.Waiting != nil {
		w := *s.Waiting
		w.Agent = cutText(w.Agent, maxSummaryTextSize)
		v.Waiting = &w
	}
	step := func(st *plan.Step) *stepView {
		if st == nil {
			return nil
		}
		sv := stepViewOf(*st)
		sv.Text, sv.Cut = cutText(sv.Text, maxSummaryTextSize), len(sv.Text) > maxSummaryTextSize
		return &sv
	}
	v.CurrentStep, v.NextStep = step(s.CurrentStep), step(s.NextStep)
	return v
}

// cutText cuts s to at most n bytes, on a rune boundary, ending it with "…" when cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// listPlans answers GET /api/plans[?limit=N&cursor=C&status=S]: a page of plan summaries in
// name order (progress, current and next step, approval; no steps: GET
// /api/plans/{name}/steps has them), the files that could not be read, the number of plans
// that match, and the cursor of the next page. A page ends at limit plans or at
// maxListPageBytes of JSON, whichever comes first, so its size does not grow with the plans'.
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
		Plans      []json.RawMessage `json:"plans"`
		Warnings   []warning         `json:"warnings"`
		Total      int               `json:"total"`
		NextCursor string            `json:"next_cursor,omitempty"`
	}{Plans: make([]json.RawMessage, 0, len(listing.Plans)), Warnings: []warning{}, Total: listing.Total, NextCursor: listing.NextCursor}
	size := 0
	for _, wn := range listing.Warnings {
		wv := warning{wn.Name, wn.Code, cutText(wn.Message, maxSummaryTextSize)}
		if size += len(wv.Name) + len(wv.Message) + 64; size > maxListWarnBytes {
			break
		}
		out.Warnings = append(out.Warnings, wv)
	}
	size = 0
	for i, s := range listing.Plans {
		data, err := json.Marshal(summaryOf(s))
		if err != nil {
			continue
		}
		if size+len(data)+1 > maxListPageBytes && i > 0 {
			// The Store's cursor continues after the plan it names.
			out.NextCursor = listing.Plans[i-1].Name
			break
		}
		size += len(data) + 1
		out.Plans = append(out.Plans, data)
	}
	writeJSON(w, http.StatusOK, out)
}
