package board_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/board"
)

func TestActionsAreRefusedOnAReadOnlyBoard(t *testing.T) {
	r := newRig(t)
	r.Put("release", releasePlan)
	var e errorBody
	if st := r.post("/api/plans/release/approve", map[string]any{"revision": 1}, &e); st != http.StatusForbidden || e.Error.Code != "read_only" {
		t.Fatalf("status %d %+v", st, e)
	}
	var me struct {
		CanAct   bool `json:"can_act"`
		ReadOnly bool `json:"read_only"`
	}
	r.get("/api/me", &me)
	if me.CanAct || !me.ReadOnly {
		t.Fatalf("me %+v", me)
	}
	p, err := r.Store.Get(context.Background(), "release")
	mustNot(t, err)
	if p.Approval != nil || p.Revision != 1 {
		t.Fatalf("a read-only board wrote: %+v", p)
	}
}

func TestActionsNeedASignedInPerson(t *testing.T) {
	for name, f := range map[string]board.PersonFunc{
		"error":  func(*http.Request) (string, error) { return "", errNoSession },
		"empty":  func(*http.Request) (string, error) { return "  ", nil },
		"panics": func(*http.Request) (string, error) { panic("broken hook") },
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, board.WithPerson(f))
			r.Put("release", releasePlan)
			var e errorBody
			if st := r.post("/api/plans/release/approve", map[string]any{"revision": 1}, &e); st != http.StatusUnauthorized || e.Error.Code != "unauthenticated" {
				t.Fatalf("status %d %+v", st, e)
			}
		})
	}
}

func TestCrossSiteActionsAreRefused(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("release", releasePlan)
	good := func() map[string]string {
		return map[string]string{"Content-Type": "application/json", board.ActionHeader: "1", "Origin": r.Srv.URL, "Sec-Fetch-Site": "same-origin"}
	}
	cases := map[string]struct {
		change     func(h map[string]string)
		status     int
		code       string
		wantStored bool
	}{
		"a form post":                     {func(h map[string]string) { h["Content-Type"] = "application/x-www-form-urlencoded" }, http.StatusUnsupportedMediaType, "not_json", false},
		"text/plain":                      {func(h map[string]string) { h["Content-Type"] = "text/plain" }, http.StatusUnsupportedMediaType, "not_json", false},
		"no action header":                {func(h map[string]string) { delete(h, board.ActionHeader) }, http.StatusForbidden, "cross_site", false},
		"another site":                    {func(h map[string]string) { h["Sec-Fetch-Site"] = "cross-site" }, http.StatusForbidden, "cross_site", false},
		"a sibling site":                  {func(h map[string]string) { h["Sec-Fetch-Site"] = "same-site" }, http.StatusForbidden, "cross_site", false},
		"another origin":                  {func(h map[string]string) { h["Origin"] = "http://evil.example" }, http.StatusForbidden, "cross_site", false},
		"a null origin":                   {func(h map[string]string) { h["Origin"] = "null" }, http.StatusForbidden, "cross_site", false},
		"another port":                    {func(h map[string]string) { h["Origin"] = "http://127.0.0.1:1" }, http.StatusForbidden, "cross_site", false},
		"the page itself":                 {func(map[string]string) {}, http.StatusOK, "", true},
		"a client without fetch metadata": {func(h map[string]string) { delete(h, "Origin"); delete(h, "Sec-Fetch-Site") }, http.StatusOK, "", true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			p, err := r.Store.Get(context.Background(), "release")
			mustNot(t, err)
			h := good()
			c.change(h)
			var e errorBody
			st := r.postWith("/api/plans/release/approve", map[string]any{"revision": p.Revision}, &e, h)
			if st != c.status || e.Error.Code != c.code {
				t.Fatalf("status %d %+v, want %d %s", st, e, c.status, c.code)
			}
			after, err := r.Store.Get(context.Background(), "release")
			mustNot(t, err)
			if stored := after.Revision != p.Revision; stored != c.wantStored {
				t.Fatalf("written: %v, want %v", stored, c.wantStored)
			}
		})
	}
	resp, err := http.Get(r.Srv.URL + "/api/plans/release/approve")
	mustNot(t, err)
	resp.Body.Close()
	if resp.StatusCode < 400 {
		t.Fatalf("GET of an action: %d", resp.StatusCode)
	}
}

func TestApprovingRecordsThePersonAtTheRevisionSeen(t *testing.T) {
	var log decisionLog
	r := newRig(t, asPerson("alice"), log.option())
	r.Put("release", releasePlan)
	var out actionJSON
	if st := r.post("/api/plans/release/approve", map[string]any{"revision": 1}, &out); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if !out.Changed || out.Plan.Approval == nil || out.Plan.Approval.Revision != 1 || out.Plan.Approval.By != "alice" || out.Plan.ChangedBy != "alice" {
		t.Fatalf("answer %+v", out)
	}
	if decisions := log.all(); len(decisions) != 1 || !decisions[0].Approved || decisions[0].By != "alice" || decisions[0].Revision != 1 || decisions[0].Name != "release" {
		t.Fatalf("decisions %+v", decisions)
	}
}

func TestStaleApprovalIsAConflictAndWritesNothing(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("release", releasePlan)
	r.start("release", 2, "worker-1") // the agent moves on after the page loaded revision 1
	var e errorBody
	if st := r.post("/api/plans/release/approve", map[string]any{"revision": 1}, &e); st != http.StatusConflict {
		t.Fatalf("status %d", st)
	}
	if e.Error.Code != "revision_conflict" || e.Error.Revision != 1 || e.Error.CurrentRevision != 2 {
		t.Fatalf("error %+v", e)
	}
	p, err := r.Store.Get(context.Background(), "release")
	mustNot(t, err)
	if p.Revision != 2 || p.Approval != nil {
		t.Fatalf("stored %+v", p)
	}
}

// A rejection needs feedback, is kept in the history with it, and withdraws an approval.
func TestRejectingNeedsFeedbackAndWithdrawsAnApproval(t *testing.T) {
	var log decisionLog
	r := newRig(t, asPerson("bob"), log.option())
	r.Put("release", releasePlan)
	var e errorBody
	if st := r.post("/api/plans/release/reject", map[string]any{"revision": 1, "feedback": " "}, &e); st != http.StatusBadRequest || e.Error.Code != "feedback_required" {
		t.Fatalf("status %d %+v", st, e)
	}
	var out actionJSON
	if st := r.post("/api/plans/release/reject", map[string]any{"revision": 1, "feedback": "Add a rollback step"}, &out); st != http.StatusOK || !out.Changed {
		t.Fatalf("status %d %+v", st, out)
	}
	if out.Plan.Revision != 2 || out.Plan.Rejection == nil || out.Plan.Rejection.Feedback != "Add a rollback step" || out.Plan.Rejection.Revision != 1 {
		t.Fatalf("the rejection is not kept: %+v", out.Plan)
	}
	hist, err := r.Store.History(context.Background(), "release")
	mustNot(t, err)
	if hist[0].Action != plan.ActionReject || hist[0].Author != "bob" || hist[0].Rejection == nil || hist[0].Rejection.Feedback != "Add a rollback step" {
		t.Fatalf("history %+v", hist[0])
	}
	_, err = r.Store.Approve(context.Background(), "release", 2, "alice")
	mustNot(t, err)
	if st := r.post("/api/plans/release/reject", map[string]any{"revision": 2, "feedback": "stale"}, &e); st != http.StatusConflict || e.Error.CurrentRevision != 3 {
		t.Fatalf("a stale rejection: %d %+v", st, e)
	}
	if st := r.post("/api/plans/release/reject", map[string]any{"revision": 3, "feedback": "No, add a rollback step"}, &out); st != http.StatusOK || !out.Changed {
		t.Fatalf("status %d %+v", st, out)
	}
	if out.Plan.Approval != nil || out.Plan.ChangedBy != "bob" || out.Plan.Revision != 4 {
		t.Fatalf("plan %+v", out.Plan)
	}
	if got := log.all(); len(got) != 2 || got[1].Approved || got[1].Feedback != "No, add a rollback step" || got[1].By != "bob" || got[1].Revision != 3 {
		t.Fatalf("decisions %+v", got)
	}
}

func TestHandingAStepOverAndReleasingIt(t *testing.T) {
	r := newRig(t, asPerson("carol"))
	r.Put("release", releasePlan)
	r.start("release", 2, "worker-1")
	var out actionJSON
	if st := r.post("/api/plans/release/steps/2/holder", map[string]any{"revision": 2, "holder": "worker-2"}, &out); st != http.StatusOK || !out.Changed {
		t.Fatalf("status %d %+v", st, out)
	}
	if s := out.Plan.Steps[1]; s.State != "in_progress" || s.Holder != "worker-2" || s.Text != "Run the checks" || out.Plan.ChangedBy != "carol" {
		t.Fatalf("plan %+v", out.Plan)
	}
	if st := r.post("/api/plans/release/steps/2/holder", map[string]any{"revision": 3, "holder": "worker-2"}, &out); st != http.StatusOK || out.Changed {
		t.Fatalf("the same holder again: %d %+v", st, out)
	}
	if st := r.post("/api/plans/release/steps/2/holder", map[string]any{"revision": 3, "holder": ""}, &out); st != http.StatusOK || !out.Changed {
		t.Fatalf("release: %d %+v", st, out)
	}
	if s := out.Plan.Steps[1]; s.State != "in_progress" || s.Holder != "" {
		t.Fatalf("released step %+v", s)
	}
	var e errorBody
	for _, c := range []struct {
		body   map[string]any
		step   string
		status int
		code   string
	}{
		{map[string]any{"revision": 2, "holder": "worker-3"}, "2", http.StatusConflict, "revision_conflict"},
		{map[string]any{"revision": 4, "holder": ""}, "3", http.StatusConflict, "nothing_to_release"},
		{map[string]any{"revision": 4, "holder": "x"}, "9", http.StatusNotFound, "no_such_step"},
		{map[string]any{"revision": 4, "holder": "two words"}, "2", http.StatusBadRequest, "bad_holder"},
		{map[string]any{"revision": 4}, "2", http.StatusBadRequest, "bad_request"},
		{map[string]any{"revision": 4, "holder": "x"}, "1", http.StatusConflict, "illegal_transition"},
	} {
		if st := r.post("/api/plans/release/steps/"+c.step+"/holder", c.body, &e); st != c.status || e.Error.Code != c.code {
			t.Errorf("%v step %s: %d %+v, want %d %s", c.body, c.step, st, e, c.status, c.code)
		}
	}
	if st := r.post("/api/plans/release/steps/3/holder", map[string]any{"revision": 4, "holder": "worker-9"}, &out); st != http.StatusOK || out.Plan.Steps[2].Holder != "worker-9" {
		t.Fatalf("assigning a pending step: %d %+v", st, out.Plan.Steps)
	}
}

// decisionLog keeps what OnDecision hands over.
type decisionLog struct {
	mu  sync.Mutex
	got []board.Decision
}

// option is the board option that hands decisions to l.
func (l *decisionLog) option() board.Option {
	return board.OnDecision(func(_ context.Context, d board.Decision) {
		l.mu.Lock()
		l.got = append(l.got, d)
		l.mu.Unlock()
	})
}

// all returns the decisions so far.
func (l *decisionLog) all() []board.Decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]board.Decision(nil), l.got...)
}
