package board_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/einoplan/plan"
)

// proofStep is a step as the board's plan view shows it, with its proof of done.
type proofStep struct {
	Number         int            `json:"number"`
	State          string         `json:"state"`
	Text           string         `json:"text"`
	Holder         string         `json:"holder"`
	By             string         `json:"by"`
	Evidence       string         `json:"evidence"`
	AwaitingReview bool           `json:"awaiting_review"`
	DoneBy         string         `json:"done_by"`
	Cost           *plan.StepCost `json:"cost"`
}

func TestAStepShowsItsEvidenceApartFromItsText(t *testing.T) {
	r := newRig(t)
	r.Put("release", releasePlan)
	r.start("release", 2, "worker-1")
	_, _, err := r.Store.MoveStep(context.Background(), plan.StepMove{Name: "release", Step: 2, State: plan.StepCompleted, By: "worker-1", Evidence: "make check exit 0"})
	mustNot(t, err)
	var p struct {
		Steps []proofStep `json:"steps"`
	}
	if st := r.get("/api/plans/release", &p); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	got := p.Steps[1]
	if got.State != "completed" || got.Text != "Run the checks" || got.By != "worker-1" || got.Evidence != "make check exit 0" {
		t.Errorf("step %+v", got)
	}
}

func TestAPersonCompletesAReviewOnTheBoard(t *testing.T) {
	r := newRig(t, asPerson("carol"))
	r.Put("release", "# Release\n- [x] Build\n- [~] Publish (review) — evidence: v2 is out (done by @worker-1, awaiting review)\n- [ ] Announce\n")
	var p struct {
		Steps []proofStep `json:"steps"`
	}
	if st := r.get("/api/plans/release", &p); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if s := p.Steps[1]; !s.AwaitingReview || s.DoneBy != "worker-1" || s.Evidence != "v2 is out" || s.Holder != "" {
		t.Fatalf("step awaiting review %+v", s)
	}
	var e errorBody
	if st := r.post("/api/plans/release/steps/3/complete", map[string]any{"revision": 1}, &e); st != http.StatusConflict || e.Error.Code != "not_awaiting_review" {
		t.Fatalf("a step not awaiting review: status %d %+v", st, e)
	}
	var out struct {
		Plan struct {
			Steps     []proofStep `json:"steps"`
			ChangedBy string      `json:"changed_by"`
		} `json:"plan"`
		Changed bool `json:"changed"`
	}
	if st := r.post("/api/plans/release/steps/2/complete", map[string]any{"revision": 1}, &out); st != http.StatusOK || !out.Changed {
		t.Fatalf("status %d %+v", st, out)
	}
	if s := out.Plan.Steps[1]; s.State != "completed" || s.AwaitingReview || s.Evidence != "v2 is out" || out.Plan.ChangedBy != "carol" {
		t.Fatalf("reviewed step %+v by %s", s, out.Plan.ChangedBy)
	}
}

func TestAStepAndItsPlanShowWhatTheyCost(t *testing.T) {
	r := newRig(t)
	r.Put("release", "# Release\n- [x] Build (@w1) — cost: 2000+100 tokens, 2 calls, 3 tools, 40s — evidence: ok\n- [x] Test (@w2) — cost: 3 calls (3 without usage), 1 tool, 20s\n- [ ] Ship\n")
	var p struct {
		Steps []proofStep   `json:"steps"`
		Cost  plan.StepCost `json:"cost"`
	}
	if st := r.get("/api/plans/release", &p); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if p.Steps[0].Text != "Build" || p.Steps[0].By != "w1" || p.Steps[0].Evidence != "ok" || p.Steps[1].Text != "Test" {
		t.Errorf("steps %+v", p.Steps)
	}
	if p.Steps[0].Cost == nil || *p.Steps[0].Cost != (plan.StepCost{PromptTokens: 2000, CompletionTokens: 100, ModelCalls: 2, ToolCalls: 3, Seconds: 40}) || p.Steps[2].Cost != nil {
		t.Errorf("step costs %+v", p.Steps)
	}
	if p.Cost != (plan.StepCost{PromptTokens: 2000, CompletionTokens: 100, ModelCalls: 5, NoUsage: 3, ToolCalls: 4, Seconds: 60}) {
		t.Errorf("plan cost %+v", p.Cost)
	}
}

func TestAPlanShowsItsBudget(t *testing.T) {
	r := newRig(t)
	body := "# Release\n- [ ] Build (budget 20k tokens)\n"
	_, err := r.Store.Put(context.Background(), plan.Update{Name: "release", Content: &body, Budget: "200k tokens, 1h"})
	mustNot(t, err)
	var p struct {
		Budget string `json:"budget"`
	}
	if st := r.get("/api/plans/release", &p); st != http.StatusOK || p.Budget != "200k tokens, 1h" {
		t.Fatalf("status %d, budget %q", st, p.Budget)
	}
}
