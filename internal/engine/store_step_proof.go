package engine

import (
	"context"

	"github.com/einoplan/plan/internal/document"
)

// checkMoveEvidence refuses evidence that cannot be written, or on a move that finishes
// nothing.
func checkMoveEvidence(m StepMove) error {
	if m.Cost != nil && (!document.ValidCost(*m.Cost) || m.State != document.StepCompleted && m.State != document.StepFailed && m.State != document.StepSkipped) {
		return document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonCostInvalid, Name: m.Name, Step: m.Step, To: m.State})
	}
	if m.Evidence == "" {
		return nil
	}
	if m.State != document.StepCompleted && m.State != document.StepFailed && m.State != document.StepSkipped {
		return document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonEvidenceState, Field: document.FieldEvidence, Name: m.Name, Step: m.Step, To: m.State})
	}
	return document.CheckEvidence(m.Evidence)
}

// proofHold adds to c what a move of step number of cur writes beyond its state: the
// evidence, and for a step asking for review, whether the move completes it into review (its
// doer, an agent) or completes the review (anyone else). An agent completing a review of its
// own work is CodeIllegalTransition (review_own).
func proofHold(ctx context.Context, cur *document.Plan, steps []document.Step, number int, m StepMove, c document.StepHold) (document.StepHold, error) {
	c.Evidence, c.Cost = m.Evidence, m.Cost
	if m.State != document.StepCompleted || number < 1 || number > len(steps) {
		return c, nil
	}
	st := steps[number-1]
	switch {
	case st.AwaitingReview && document.ByAgent(ctx) && st.DoneBy != "" && st.DoneBy == c.By:
		return c, document.Fail(document.Error{Code: document.CodeIllegalTransition, Reason: document.ReasonReviewOwn, Name: cur.Name, CurrentRevision: cur.Revision,
			Step: number, From: st.State, To: m.State, Agent: st.DoneBy, Next: nextAfter(steps, number)})
	case st.AwaitingReview:
		c.Review, c.Reviewer = document.ReviewDone, c.By
		if c.Reviewer == "" {
			c.Reviewer = document.HolderName(document.ActorOf(ctx))
		}
	case st.Review && document.ByAgent(ctx):
		c.Review = document.ReviewInto
	}
	return c, nil
}
