package plan

import "context"

// checkMoveEvidence refuses evidence that cannot be written, or on a move that finishes
// nothing.
func checkMoveEvidence(m StepMove) error {
	if m.Cost != nil && (!m.Cost.valid() || m.State != StepCompleted && m.State != StepFailed && m.State != StepSkipped) {
		return fail(Error{Code: CodeInvalidArgument, Reason: reasonCostInvalid, Name: m.Name, Step: m.Step, To: m.State})
	}
	if m.Evidence == "" {
		return nil
	}
	if m.State != StepCompleted && m.State != StepFailed && m.State != StepSkipped {
		return fail(Error{Code: CodeInvalidArgument, Reason: reasonEvidenceState, Field: fieldEvidence, Name: m.Name, Step: m.Step, To: m.State})
	}
	return checkEvidence(m.Evidence)
}

// proofClaim adds to c what a move of step number of cur writes beyond its state: the
// evidence, and for a step asking for review, whether the move completes it into review (its
// doer, an agent) or completes the review (anyone else). An agent completing a review of its
// own work is CodeIllegalTransition (review_own).
func proofClaim(ctx context.Context, cur *Plan, steps []Step, number int, m StepMove, c stepClaim) (stepClaim, error) {
	c.evidence, c.cost = m.Evidence, m.Cost
	if m.State != StepCompleted || number < 1 || number > len(steps) {
		return c, nil
	}
	st := steps[number-1]
	switch {
	case st.AwaitingReview && byAgent(ctx) && st.DoneBy != "" && st.DoneBy == c.by:
		return c, fail(Error{Code: CodeIllegalTransition, Reason: reasonReviewOwn, Name: cur.Name, CurrentRevision: cur.Revision,
			Step: number, From: st.State, To: m.State, Agent: st.DoneBy, Next: nextAfter(steps, number)})
	case st.AwaitingReview:
		c.review, c.reviewer = reviewDone, c.by
		if c.reviewer == "" {
			c.reviewer = holderName(actorOf(ctx))
		}
	case st.Review && byAgent(ctx):
		c.review = reviewInto
	}
	return c, nil
}
