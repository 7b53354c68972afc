package engine

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/einoplan/plan/internal/document"
)

// What a model needs to use leases: when a hold that stops it runs out, and, when its own
// hold ran out and another agent took the step, that this is what happened and who took it.

// leaseEnd is when the hold on step st of p runs out unless renewed; zero without a lease
// (ClaimTTL 0) or a holder.
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

// HeldUntil is when the hold on step number of p runs out unless its holder renews it
// (StoreConfig.ClaimTTL), as every Store on the storage judges it; zero when the Store has
// no lease, or the step is not held in progress.
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
