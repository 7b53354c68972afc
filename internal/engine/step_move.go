package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/einoplan/plan/internal/document"
)

func NextOf(steps []document.Step) *document.Step {
	if n, ok := document.NextFreeStep(steps); ok {
		return &n
	}
	return nil
}

// checkReady refuses to start or finish step number of cur (steps parsed from it) while
// steps it waits for are not completed or skipped: CodeStepBlocked naming them in Waits. A
// step in progress moved to in_progress again (a renewal, a takeover, a release) starts
// nothing, so it is never refused: a rewrite that renumbered its prerequisites cannot
// leave a hold that nobody can renew or release.
func checkReady(cur *document.Plan, steps []document.Step, number int, to document.StepState) error {
	if to != document.StepInProgress && to != document.StepCompleted || number < 1 || number > len(steps) {
		return nil
	}
	if to == document.StepInProgress && steps[number-1].State == document.StepInProgress {
		return nil
	}
	waits := document.WaitsOf(steps, steps[number-1])
	if waits == nil {
		return nil
	}
	return document.Fail(document.Error{Code: document.CodeStepBlocked, Reason: document.ReasonStepBlocked, Name: cur.Name, CurrentRevision: cur.Revision,
		Step: number, From: steps[number-1].State, To: to, Waits: waits, Next: nextAfter(steps, number)})
}

// checkAgentSkip refuses an agent's skip of step number of cur (steps parsed from it) while
// other steps wait for it, when the plan is under the approval requirement: skipping it
// would start what a person approved to run only after it. Only a person (a change through
// the Store's API, not a plan tool's call) skips such a step. CodeIllegalTransition names
// the steps that wait in Waits.
func checkAgentSkip(ctx context.Context, cur *document.Plan, steps []document.Step, number int, to document.StepState) error {
	if to != document.StepSkipped || number < 1 || number > len(steps) || !document.ByAgent(ctx) || !document.Gated(ctx, cur) {
		return nil
	}
	var waiting []int
	for _, st := range steps {
		if (st.State == document.StepPending || st.State == document.StepInProgress) && slices.Contains(st.After, number) {
			waiting = append(waiting, st.Number)
		}
	}
	if waiting == nil {
		return nil
	}
	return document.Fail(document.Error{Code: document.CodeIllegalTransition, Reason: document.ReasonSkipAwaited, Name: cur.Name, CurrentRevision: cur.Revision,
		Step: number, From: steps[number-1].State, To: to, Waits: waiting})
}

// nextAfter is the step to point an agent at after it was refused step number: the first
// ready pending step after it, else the first ready one. Agents refused together (they all went
// for the same step) so spread out instead of all trying the same step again.
func nextAfter(steps []document.Step, number int) *document.Step {
	for _, s := range steps {
		if s.Number > number && s.State == document.StepPending && document.WaitsOf(steps, s) == nil {
			return &s
		}
	}
	return NextOf(steps)
}

// SameStepList reports whether the steps now are those of was, in the same order and
// nesting: each with the same text, or, for a step whose state changed, with the text the
// Store's moves give it (a note appended after " — ", a holder's tag), as for a step whose
// holder changed (a takeover).
func SameStepList(was, now []document.Step) bool {
	if len(was) != len(now) {
		return false
	}
	for i, b := range was {
		n := now[i]
		if n.Depth != b.Depth {
			return false
		}
		if n.Text == b.Text || n.WithoutHolder() == b.WithoutHolder() {
			continue
		}
		rest, ok := strings.CutPrefix(n.Text, b.WithoutHolder())
		if b.WithoutHolder() == "" {
			rest = " " + rest // a step with no text: the note or tag starts the text
		}
		moved := n.State != b.State || n.Holder != b.Holder
		if !moved || !ok || !(strings.HasPrefix(rest, document.StepNoteSep) || strings.HasPrefix(rest, " (@")) {
			return false
		}
	}
	return true
}

// sameStepTexts reports whether two lists of steps have the same texts in the same order
// and nesting, whatever their states. Only the Store's own step moves may append a note or
// a tag and still leave the steps as they were: a rewrite that does the same rewords them.
func sameStepTexts(was, now []document.Step) bool {
	if len(was) != len(now) {
		return false
	}
	for i := range was {
		if was[i].Text != now[i].Text || was[i].Depth != now[i].Depth {
			return false
		}
	}
	return true
}

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
