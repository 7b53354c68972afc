package engine

import (
	"strings"

	"github.com/einoplan/plan/internal/document"
)

// The rules of a step move that concern proof and who finishes a step others wait for: one
// entry each in moveChecks.

// checkProof starts an empty record of what the host observes under a hold the move starts
// (observations.go), and refuses an agent's completion of a "(proof …)" step unless the
// host saw, under the mover's hold, a passing call of a proof tool after its last call of
// the step's other "(uses …)" tools (document.Proven): CodeUnproven, naming the tools to call
// in Value. A completion it saw one for writes that call's mark on the step's line. A
// person's completion (the Store's API), and a review's, need none.
func checkProof(mv *stepMove) error {
	st, ok := mv.step()
	if !ok || mv.observed == nil {
		return nil
	}
	c := &mv.hold
	if mv.move.State == document.StepInProgress && !c.Renew {
		mv.observed.forgetObserved(mv.plan.Name, mv.number, c.By)
		return nil
	}
	if mv.move.State != document.StepCompleted || len(st.Proof) == 0 || c.Review == document.ReviewDone || !document.ByAgent(mv.ctx) {
		return nil
	}
	proof, proven := document.Proven(st, mv.observed.Observed(mv.plan.Name, mv.number, c.By))
	if !proven {
		return &document.Error{Code: document.CodeUnproven, Reason: document.ReasonUnproven, Name: mv.plan.Name, CurrentRevision: mv.plan.Revision,
			Step: mv.number, From: st.State, To: mv.move.State, Value: strings.Join(st.Proof, ", ")}
	}
	c.Observed = document.ObservedMark(proof)
	return nil
}

// checkAgentFail refuses an agent's move to failed of a step it does not hold while other
// steps wait for it: a failed step blocks them, so only its holder or a person (the Store's
// API) fails it. A step awaiting review may be failed by an agent that may review it.
// CodeIllegalTransition names the steps that wait in Waits.
func checkAgentFail(mv *stepMove) error {
	st, ok := mv.step()
	if mv.move.State != document.StepFailed || !ok || !document.ByAgent(mv.ctx) {
		return nil
	}
	by := mv.hold.By
	if st.Holder != "" && st.Holder == by || st.AwaitingReview && !document.SameAgent(st.DoneBy, by) {
		return nil
	}
	waiting := mv.awaitedBy()
	if waiting == nil {
		return nil
	}
	return &document.Error{Code: document.CodeIllegalTransition, Reason: document.ReasonFailAwaited, Name: mv.plan.Name, CurrentRevision: mv.plan.Revision,
		Step: mv.number, From: st.State, To: document.StepFailed, Waits: waiting}
}
