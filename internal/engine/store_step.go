package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan/internal/document"
)

// MoveStep is plan.Store.MoveStep, whose doc comment is the contract.
func (s *Store) MoveStep(ctx context.Context, m StepMove) (*document.Plan, document.Step, error) {
	by := m.By
	switch {
	case m.Takeover && m.State == document.StepInProgress:
		// a takeover hands the step to By, or to nobody; the history names the context's actor
	case by == "":
		by = document.ActorOf(ctx)
	case document.ActorOf(ctx) == "":
		ctx = document.WithActor(ctx, by) // the history names who moved it
	}
	return s.moveStep(ctx, m, document.StepHold{By: document.HolderName(by), Takeover: m.Takeover})
}

func (s *Store) moveStep(ctx context.Context, m StepMove, hold document.StepHold) (*document.Plan, document.Step, error) {
	if err := document.CheckNote(m.Note); err != nil {
		return nil, document.Step{}, err
	}
	m.Evidence = document.FoldEvidence(m.Evidence)
	if err := checkMoveEvidence(m); err != nil {
		return nil, document.Step{}, err
	}
	var step document.Step
	p, err := s.mutateCommuting(ctx, document.ActionStep, m.Name, m.IfRevision, s.stepCommutes(m, hold), func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil {
			return nil, notFound(m.Name)
		}
		steps := document.StepsOf(cur.Content)
		now := s.Now().UTC()
		number := m.Step
		c := hold
		if number == 0 && m.State == document.StepInProgress {
			next, ok := document.ExpiredStep(cur, steps, s.holdTTL, now)
			if !ok || next.Holder == c.By {
				next, ok = document.NextFreeStep(steps)
			}
			if !ok {
				if waits := document.BlockingSteps(steps); len(waits) > 0 {
					return nil, s.withLease(document.Fail(document.Error{Code: document.CodeStepBlocked, Reason: document.ReasonNoReadyStep, Name: cur.Name, CurrentRevision: cur.Revision, Waits: waits}), cur, steps)
				}
				return nil, document.Fail(document.Error{Code: document.CodeIllegalTransition, Reason: document.ReasonNoPendingStep, Name: cur.Name, CurrentRevision: cur.Revision})
			}
			number = next.Number
		}
		expired := ""
		if number >= 1 && number <= len(steps) {
			switch st := steps[number-1]; {
			case st.Holder != "" && st.Holder != c.By && document.HoldExpired(cur, st, s.holdTTL, now):
				expired, c.Takeover = st.Holder, true // its holder stopped renewing it
			case st.Holder != "" && st.Holder == c.By && m.State == document.StepInProgress && !c.Takeover:
				c.Renew = true
			}
		}
		keepsInProgress := m.State == document.StepInProgress && number >= 1 && number <= len(steps) && steps[number-1].State == document.StepInProgress
		if keepsInProgress {
			c.RenewalNote = document.RenewalNoteSize(cur.RenewalNotes, number)
		}
		c, err := proofHold(ctx, cur, steps, number, m, c)
		if err != nil {
			return nil, err
		}
		body, updated, err := document.SetStep(cur.Content, number, m.State, m.Note, c)
		if err != nil {
			var e *document.Error
			if errors.As(err, &e) && e.Code == document.CodeStepHeld {
				e.Name, e.CurrentRevision = cur.Name, cur.Revision
				e.Next = nextAfter(steps, number)
			}
			return nil, s.withLease(err, cur, steps)
		}
		if err := checkReady(cur, steps, number, m.State); err != nil {
			return nil, s.withLease(err, cur, steps)
		}
		if err := checkAgentSkip(ctx, cur, steps, number, m.State); err != nil {
			return nil, err
		}
		if err := s.checkContent(body); err != nil {
			return nil, err
		}
		step = updated
		next := *cur
		next.Content = body
		if m.State == document.StepInProgress {
			next.Holds = document.WithHold(cur.Holds, number, now) // a new hold, or its holder's renewal
		}
		switch note := strings.TrimSpace(m.Note); {
		case keepsInProgress && note != "":
			next.RenewalNotes = document.WithRenewalNote(cur.RenewalNotes, number, len(document.StepNoteSep)+len(note))
		case !keepsInProgress:
			next.RenewalNotes = document.WithRenewalNote(cur.RenewalNotes, number, 0)
		}
		if expired != "" {
			next.ExpiredHold = strconv.Itoa(number) + " " + expired
		}
		return &next, nil
	})
	if err != nil {
		return nil, document.Step{}, s.explainTaken(ctx, err, m.Name, m.Step, hold.By)
	}
	s.notify(ctx, document.ActionStep, p, false)
	return p, step, nil
}

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
			Revision: want, Step: m.Step, From: n.State, To: m.State, Agent: s.whoMoved(ctx, cur, want, m.Step), Next: nextAfter(now, m.Step)}
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

// updateStep moves checklist step number (1-based) of an existing plan to state, appending
// note to the step's line when given. It returns the plan and the updated step. The agent
// the context carries (a tool call's) holds the steps it moves to in_progress, and a step
// another agent holds is CodeStepHeld. An ifRevision older than the plan still moves the step
// when the changes since cannot have made the move wrong (see StepMove).
func (s *Store) updateStep(ctx context.Context, name string, number int, state document.StepState, note string, ifRevision *int64) (*document.Plan, document.Step, error) {
	return s.MoveStep(ctx, StepMove{Name: name, Step: number, State: state, Note: note, IfRevision: ifRevision})
}

// What a model needs to use leases: when a hold that stops it runs out, and, when its own
// hold ran out and another agent took the step, that this is what happened and who took it.

// leaseEnd is when the hold on step st of p runs out unless renewed; zero without a lease
// (HoldTTL 0) or a holder.
func (s *Store) leaseEnd(p *document.Plan, st document.Step) time.Time {
	if s.holdTTL <= 0 || st.State != document.StepInProgress || st.Holder == "" {
		return time.Time{}
	}
	return document.HeldSince(p, st).Add(s.holdTTL).UTC()
}

// withLease adds to a step_held or step_blocked refusal err, made on cur, when the hold
// that causes it runs out: the held step's, or the earliest among the held steps a blocked
// step waits for. Other errors are returned as they are.
func (s *Store) withLease(err error, cur *document.Plan, steps []document.Step) error {
	var e *document.Error
	if s.holdTTL <= 0 || !errors.As(err, &e) {
		return err
	}
	switch e.Code {
	case document.CodeStepHeld:
		if e.Step >= 1 && e.Step <= len(steps) {
			e.Expires = s.leaseEnd(cur, steps[e.Step-1])
		}
	case document.CodeStepBlocked:
		for _, n := range e.Waits {
			if n < 1 || n > len(steps) {
				continue
			}
			if end := s.leaseEnd(cur, steps[n-1]); !end.IsZero() && (e.Expires.IsZero() || end.Before(e.Expires)) {
				e.Expires = end
			}
		}
	}
	return err
}

// holdTaken explains a refused move of step number of cur by mover, when mover held that
// step and its hold expired and another agent took it: the kept history has the revision
// that moved the step past mover's expired hold. It returns err unchanged otherwise.
func (s *Store) holdTaken(ctx context.Context, err error, cur *document.Plan, number int, mover string) error {
	var e *document.Error
	if mover == "" || !errors.As(err, &e) || !refusedMove(e) {
		return err
	}
	kept, kerr := s.keptHistory(ctx, cur, s.oldestShown(cur.Revision))
	if kerr != nil {
		return err
	}
	want := strconv.Itoa(number) + " " + mover
	for _, k := range kept {
		if k.plan.ExpiredHold != want {
			continue
		}
		steps := document.StepsOf(cur.Content)
		taken := document.Error{Code: e.Code, Reason: document.ReasonHoldTaken, Name: cur.Name, CurrentRevision: cur.Revision,
			Revision: k.rev, Step: number, To: e.To, Agent: k.plan.ChangedBy, Next: nextAfter(steps, number)}
		if number <= len(steps) {
			taken.From = steps[number-1].State
		}
		return document.Fail(taken)
	}
	return err
}

// explainTaken is holdTaken for a refused move of step number of plan name, read again.
func (s *Store) explainTaken(ctx context.Context, err error, name string, number int, mover string) error {
	var e *document.Error
	if number < 1 || mover == "" || !errors.As(err, &e) || !refusedMove(e) || !s.keepsEntries() {
		return err
	}
	cur, _, lerr := s.load(ctx, name)
	if lerr != nil || cur == nil {
		return err
	}
	return s.holdTaken(ctx, err, cur, number, mover)
}

// refusedMove reports whether e refuses a step move for what the step is now: held by
// another, in a state that allows no such move, or moved since the mover's revision.
func refusedMove(e *document.Error) bool {
	return e.Code == document.CodeStepHeld || e.Code == document.CodeIllegalTransition ||
		e.Reason == document.ReasonStepMoved || e.Reason == document.ReasonStepChanged
}

// HeldUntil is plan.Store.HeldUntil, whose doc comment is the contract.
func (s *Store) HeldUntil(p *document.Plan, number int) time.Time {
	if p == nil || number < 1 {
		return time.Time{}
	}
	steps := document.StepsOf(p.Content)
	if number > len(steps) {
		return time.Time{}
	}
	return s.leaseEnd(p, steps[number-1])
}
