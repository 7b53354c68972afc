package board_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/einoplan/plan"
)

// proofStep is a step as the board's plan view shows it, with its proof of done.
type proofStep struct {
	Number         int    `json:"number"`
	State          string `json:"state"`
	Text           string `json:"text"`
	Holder         string `json:"holder"`
	By             string `json:"by"`
	Evidence       string `json:"evidence"`
	AwaitingReview bool   `json:"awaiting_review"`
	DoneBy         string `json:"done_by"`
}

func TestAStepShowsItsEvidenceApartFromItsText(t *testing.T) {
	r := newRig(t)
	r.put("release", releasePlan)
	r.start("release", 2, "worker-1")
	_, _, err := r.store.MoveStep(context.Background(), plan.StepMove{Name: "release", Step: 2, State: plan.StepCompleted, By: "worker-1", Evidence: "make check exit 0"})
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
