package board_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/einoplan/plan/api"
)

// commentJSON is the answer to a comment or a resolve.
type commentJSON struct {
	Comment api.Comment `json:"comment"`
	Plan    struct {
		Revision int64         `json:"revision"`
		Comments []api.Comment `json:"comments"`
	} `json:"plan"`
	Changed bool `json:"changed"`
}

// A person comments on a step and on the plan from the board and resolves a comment; each
// is kept with who, when and at which revision, and the plan's JSON carries them.
func TestAPersonCommentsAndResolvesFromTheBoard(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("release", releasePlan)
	var out commentJSON
	if st := r.post("/api/plans/release/comments", map[string]any{"step": 2, "text": "Tag it signed"}, &out); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	want := api.Comment{ID: "c1", Step: 2, Author: "alice", At: out.Comment.At, Revision: 1, Text: "Tag it signed"}
	if out.Comment != want || !out.Changed || out.Plan.Revision != 2 || len(out.Plan.Comments) != 1 {
		t.Fatalf("answer %+v", out)
	}
	if st := r.post("/api/plans/release/comments", map[string]any{"step": 0, "text": "Who is on call?"}, &out); st != http.StatusOK || out.Comment.ID != "c2" {
		t.Fatalf("status %d %+v", st, out)
	}
	if st := r.post("/api/plans/release/comments/c1/resolve", map[string]any{}, &out); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if out.Comment.ID != "c1" || out.Comment.ResolvedBy != "alice" || out.Comment.ResolvedAt == nil || len(api.OpenComments(out.Plan.Comments)) != 1 {
		t.Fatalf("answer %+v", out)
	}
	p, err := r.Store.Get(context.Background(), "release")
	mustNot(t, err)
	if len(p.Comments) != 2 || p.Comments[0].ResolvedBy != "alice" || p.Comments[1].Author != "alice" {
		t.Fatalf("stored %+v", p.Comments)
	}
}

// The board refuses a comment that is not one (no step, a step the plan lacks, no text, too
// long, unknown fields) and a resolve of a comment the plan does not have; nothing is written.
func TestABadCommentIsRefusedAndWritesNothing(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("release", releasePlan)
	for _, c := range []struct {
		body   map[string]any
		status int
		code   string
	}{
		{map[string]any{"text": "no step"}, http.StatusBadRequest, "bad_request"},
		{map[string]any{"step": -1, "text": "x"}, http.StatusBadRequest, "bad_request"},
		{map[string]any{"step": 9, "text": "x"}, http.StatusBadRequest, "invalid_argument"},
		{map[string]any{"step": 1, "text": " \n"}, http.StatusBadRequest, "invalid_argument"},
		{map[string]any{"step": 1, "text": strings.Repeat("x", api.MaxCommentBytes+1)}, http.StatusRequestEntityTooLarge, "too_large"},
		{map[string]any{"step": 1, "text": "x", "by": "mallory"}, http.StatusBadRequest, "bad_request"},
	} {
		var e errorBody
		if st := r.post("/api/plans/release/comments", c.body, &e); st != c.status || (e.Error.Code != c.code && c.code != "bad_request") {
			t.Errorf("%v: status %d %+v", c.body, st, e)
		}
	}
	var e errorBody
	if st := r.post("/api/plans/release/comments/c7/resolve", map[string]any{}, &e); st != http.StatusNotFound || e.Error.Code != "not_found" {
		t.Errorf("resolve of an unknown comment: %d %+v", st, e)
	}
	if st := r.post("/api/plans/absent/comments", map[string]any{"step": 0, "text": "x"}, &e); st != http.StatusNotFound {
		t.Errorf("a comment on no plan: %d %+v", st, e)
	}
	p, err := r.Store.Get(context.Background(), "release")
	mustNot(t, err)
	if p.Revision != 1 || len(p.Comments) != 0 {
		t.Fatalf("stored %+v", p)
	}
}

// A rejection from the board may carry comments, kept in the same write; the plan's JSON
// escapes a comment's markup, so it never reaches the page as HTML.
func TestARejectionCarriesCommentsAndTheirTextIsEscaped(t *testing.T) {
	r := newRig(t, asPerson("bob"))
	r.Put("release", releasePlan)
	var out actionJSON
	body := map[string]any{"revision": 1, "feedback": "see comments", "comments": []map[string]any{{"step": 1, "text": "<script>alert(1)</script>"}}}
	if st := r.post("/api/plans/release/reject", body, &out); st != http.StatusOK || out.Plan.Revision != 2 {
		t.Fatalf("status %d %+v", st, out)
	}
	resp, err := http.Get(r.Srv.URL + "/api/plans/release")
	mustNot(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	mustNot(t, err)
	if strings.Contains(string(raw), "<script>") || !strings.Contains(string(raw), `\u003cscript\u003e`) {
		t.Fatalf("the comment is not escaped: %s", raw)
	}
	p, err := r.Store.Get(context.Background(), "release")
	mustNot(t, err)
	if len(p.Comments) != 1 || p.Comments[0].Author != "bob" || p.Comments[0].Revision != 1 || p.Rejection == nil {
		t.Fatalf("stored %+v", p)
	}
}
