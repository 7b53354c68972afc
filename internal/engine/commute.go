package engine

import (
	"context"
	"strings"

	"github.com/einoplan/plan/internal/document"
)

// A step move made on an older revision of a plan still goes through when the changes since
// cannot have made it wrong: the list of steps is the same, and the step itself is as the
// mover saw it. History says which.

// stepCommutes judges a step move made on revision want against the plan now (StepMove).
// The list of steps is known unchanged since want when the plan's steps revision is not
// newer, without reading history; otherwise history is read back to want and each change
// since is judged as stepsRevision judges it (listKept). History is also read to compare the
// step itself (a note, a move its state no longer allows).
func (s *Store) stepCommutes(m StepMove, c document.StepHold) commuteFunc {
	return func(ctx context.Context, want int64, cur *document.Plan, curRaw string) error {
		if m.Step == 0 {
			return nil // the next free step, chosen from the plan as it is
		}
		now := document.StepsOf(cur.Content)
		// was are the steps of revision want, read from history once, when needed.
		var was []document.Step
		kept, listKept, looked := false, false, false
		baseSteps := func() error {
			if !looked {
				looked = true
				var err error
				if was, listKept, kept, err = s.stepsSince(ctx, cur, want); err != nil {
					return err
				}
			}
			if !kept {
				return errUnknownBase
			}
			return nil
		}
		if cur.StepsRev == 0 || cur.StepsRev > want {
			if err := baseSteps(); err != nil {
				return err
			}
			if !listKept {
				return document.Fail(document.Error{Code: document.CodeRevisionConflict, Reason: document.ReasonStepsChanged, Name: cur.Name, CurrentRevision: cur.Revision, Revision: want})
			}
		}
		if m.Step < 1 || m.Step > len(now) {
			return nil // setStep names the missing step
		}
		n := now[m.Step-1]
		switch {
		case c.By != "" && n.Holder == c.By:
			return nil // its own step
		case n.Holder != "" && !c.Takeover && !document.HoldExpired(cur, n, s.holdTTL, s.Now()):
			return nil // setStep refuses it as held (an expired hold is taken over: judged below)
		case n.AwaitingReview && m.State == document.StepCompleted:
			// A review completes what its reviewer saw awaiting review: judged below.
		case m.Note == "" && (document.CheckTransition(n.State, m.State) == nil || c.Takeover && n.State == document.StepInProgress && m.State == document.StepInProgress):
			return nil
		}
		if err := baseSteps(); err != nil {
			return err
		}
		if m.Step <= len(was) && was[m.Step-1].State == n.State && was[m.Step-1].Text == n.Text {
			return nil // the step itself is unchanged: setStep judges the move
		}
		e := document.Error{Code: document.CodeRevisionConflict, Reason: document.ReasonStepMoved, Name: cur.Name, CurrentRevision: cur.Revision,
			Revision: want, Step: m.Step, From: n.State, To: m.State, Agent: s.whoMoved(ctx, cur, want, m.Step), Next: document.NextAfter(now, m.Step)}
		if e.Agent == "" {
			e.Reason = document.ReasonStepChanged
		}
		return document.Fail(e)
	}
}

// stepsSince returns the steps of revision want of cur (kept false when history no longer
// has every revision from want to cur), and whether each change since kept the list of
// steps as stepsRevision judges a change: a step move always does (only the Store writes
// its marker, note and tag); any other change (a rewrite, an edited approval, an edit by
// hand, which records no change) only when every step keeps its text and nesting. So a
// rewrite that moves a step and appends " — text" rewords it, though its line reads like a
// move's.
func (s *Store) stepsSince(ctx context.Context, cur *document.Plan, want int64) (was []document.Step, listKept, kept bool, err error) {
	if want == cur.Revision {
		return document.StepsOf(cur.Content), true, true, nil
	}
	if want < s.oldestShown(cur.Revision) || want > cur.Revision || !s.historyOn() {
		return nil, false, false, nil
	}
	revs, err := s.keptHistory(ctx, cur, want)
	if err != nil || revs[len(revs)-1].rev != want {
		return nil, false, false, err
	}
	listKept = true
	newer := document.StepsOf(cur.Content)
	for i := 1; i < len(revs); i++ {
		older := document.StepsOf(revs[i].plan.Content)
		if revs[i-1].plan.Action != document.ActionStep && !sameStepTexts(older, newer) {
			listKept = false
		}
		newer = older
	}
	return newer, listKept, true, nil
}

// whoMoved names the agent whose change first altered step number after revision since,
// from the kept history; "" when the history does not say.
func (s *Store) whoMoved(ctx context.Context, cur *document.Plan, since int64, number int) string {
	kept, err := s.keptHistory(ctx, cur, since)
	if err != nil {
		return ""
	}
	var prev *document.Step
	for i := len(kept) - 1; i >= 0; i-- {
		steps := document.StepsOf(kept[i].plan.Content)
		if number > len(steps) {
			break
		}
		st := steps[number-1]
		if prev != nil && (st.State != prev.State || st.Text != prev.Text) {
			return kept[i].plan.ChangedBy
		}
		prev = &st
	}
	return ""
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
