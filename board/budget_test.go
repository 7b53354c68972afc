package board_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/einoplan/plan"
)

// overBudgetJSON is what the API says of budgets: of the plan, and of each step.
type overBudgetJSON struct {
	OverBudget bool `json:"over_budget"`
	Steps      []struct {
		Number     int    `json:"number"`
		Text       string `json:"text"`
		OverBudget bool   `json:"over_budget"`
	} `json:"steps"`
	Approval *struct {
		By string `json:"by"`
	} `json:"approval"`
	History []struct {
		Author string `json:"author"`
	} `json:"history"`
}

// A step whose recorded cost went over its budget, and a plan whose steps' costs together
// went over the plan's, are marked over_budget by the API: on the plan, its steps, and in
// the list.
func TestTheAPIMarksWhatWentOverItsBudget(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("release", "# Release\n- [x] Build (budget 1k tokens) — cost: 2000+100 tokens, 2 calls, 3 tools, 40s\n- [ ] Ship (budget 1m)\n")
	var p overBudgetJSON
	r.get("/api/plans/release", &p)
	if p.OverBudget || len(p.Steps) != 2 || !p.Steps[0].OverBudget || p.Steps[1].OverBudget {
		t.Fatalf("before a plan budget: %+v", p)
	}
	var got struct {
		Plan overBudgetJSON `json:"plan"`
	}
	if st := r.post("/api/plans/release/budget", map[string]any{"step": 0, "budget": "2k tokens"}, &got); st != http.StatusOK || !got.Plan.OverBudget {
		t.Fatalf("status %d %+v", st, got)
	}
	var list struct {
		Plans []overBudgetJSON `json:"plans"`
	}
	r.get("/api/plans", &list)
	if len(list.Plans) != 1 || !list.Plans[0].OverBudget {
		t.Fatalf("list %+v", list)
	}
}

// A person raises a step's budget from the board: the Store writes the step's "(budget …)"
// and the plan stays approved, with the person named in its history. A budget that does not
// read, or none, is refused and nothing is written; a read-only board refuses it all.
func TestAPersonRaisesAStepsBudgetFromTheBoard(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	p := r.Put("release", "# Release\n- [ ] Build (budget 1k tokens) (uses deploy)\n- [ ] Ship\n")
	if _, err := r.Store.Approve(context.Background(), "release", p.Revision, "bob"); err != nil {
		t.Fatal(err)
	}
	r.start("release", 1, "worker-1")

	var got struct {
		Plan overBudgetJSON `json:"plan"`
	}
	if st := r.post("/api/plans/release/budget", map[string]any{"step": 1, "budget": "20k tokens"}, &got); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if got.Plan.Approval == nil || got.Plan.Approval.By != "bob" {
		t.Fatalf("the approval did not stay: %+v", got.Plan)
	}
	if !strings.Contains(got.Plan.Steps[0].Text, "(budget 20k tokens)") || got.Plan.History[0].Author != "alice" {
		t.Fatalf("%+v", got.Plan)
	}
	cur, err := r.Store.Get(context.Background(), "release")
	mustNot(t, err)
	if s := plan.ParseSteps(cur.Content)[0]; s.Holder != "worker-1" || s.Budget.Tokens != 20000 {
		t.Fatalf("step %+v", s)
	}

	for body, code := range map[string]string{`{"step":1,"budget":"plenty"}`: "invalid_argument", `{"step":1}`: "budget_required",
		`{"step":9,"budget":"1h"}`: "invalid_argument", `{"step":-1,"budget":"1h"}`: "bad_request", `{"steps":1}`: "bad_request"} {
		var e errorBody
		if st := r.post("/api/plans/release/budget", rawJSON(body), &e); st != http.StatusBadRequest || e.Error.Code != code {
			t.Fatalf("%s: status %d %+v", body, st, e)
		}
	}
	after, err := r.Store.Get(context.Background(), "release")
	mustNot(t, err)
	if after.Revision != cur.Revision {
		t.Fatalf("a refused raise wrote revision %d", after.Revision)
	}

	ro := newRig(t)
	ro.Put("release", "# Release\n- [ ] Build\n")
	var e errorBody
	if st := ro.post("/api/plans/release/budget", map[string]any{"step": 1, "budget": "1h"}, &e); st != http.StatusForbidden || e.Error.Code != "read_only" {
		t.Fatalf("read-only board: status %d %+v", st, e)
	}
}

// rawJSON is a request body sent as written.
type rawJSON string

func (j rawJSON) MarshalJSON() ([]byte, error) { return []byte(j), nil }
