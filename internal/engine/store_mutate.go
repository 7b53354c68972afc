package engine

import (
	"context"
	"fmt"
	"math"

	"github.com/einoplan/plan/internal/document"
)

// checkTarget refuses a name ValidateName refuses, then an ifRevision below 0.
func checkTarget(name string, ifRevision *int64) error {
	refusal := document.NameRefusal(name)
	if refusal == nil && ifRevision != nil && *ifRevision < 0 {
		refusal = &document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonRevisionNegative, Field: document.FieldIfRevision, Revision: *ifRevision}
	}
	if refusal != nil {
		return document.Fail(*refusal)
	}
	return nil
}

// checkRevision enforces IfRevision against what is stored (cur nil: absent).
func checkRevision(name string, cur *document.Plan, ifRevision *int64) error {
	if refusal := revisionRefusal(name, cur, ifRevision); refusal != nil {
		return document.Fail(*refusal)
	}
	return nil
}

// revisionRefusal is the facts of checkRevision's refusal, not yet rendered, or nil.
func revisionRefusal(name string, cur *document.Plan, ifRevision *int64) *document.Error {
	if ifRevision == nil {
		return nil
	}
	want := *ifRevision
	switch {
	case cur == nil && want > 0:
		return &document.Error{Code: document.CodeNotFound, Reason: document.ReasonNoPlanGuarded, Name: name, Revision: want}
	case cur != nil && want == 0:
		return &document.Error{Code: document.CodeRevisionConflict, Reason: document.ReasonExists, Name: name, CurrentRevision: cur.Revision}
	case cur != nil && want != cur.Revision:
		return &document.Error{Code: document.CodeRevisionConflict, Reason: document.ReasonStale, Name: name, CurrentRevision: cur.Revision, Revision: want}
	}
	return nil
}

// mutate runs one read-check-write under the locks: it loads the plan, checks ifRevision,
// lets change build the next version (cur is nil when the plan does not exist), and writes
// it with the next revision. On a driver.Swapper backend a lost race is retried from the read, so
// a guarded write then fails on the revision check and an unguarded one lands on top.
// The file the change replaces is kept as a history entry (history.go).
func (s *Store) mutate(ctx context.Context, action document.Action, name string, ifRevision *int64, change func(cur *document.Plan) (*document.Plan, error)) (*document.Plan, error) {
	return s.mutateCommuting(ctx, action, name, ifRevision, nil, change)
}

// commuteFunc decides whether a change based on the older revision want may still be
// applied to cur: nil applies it, an error refuses it, and errUnknownBase leaves the
// revision check's refusal standing.
type commuteFunc func(ctx context.Context, want int64, cur *document.Plan, curRaw string) error

// mutateCommuting is mutate for a change that commutes with some others: when ifRevision is
// older than the plan and still kept, commutes decides instead of the revision check.
func (s *Store) mutateCommuting(ctx context.Context, action document.Action, name string, ifRevision *int64, commutes commuteFunc, change func(cur *document.Plan) (*document.Plan, error)) (*document.Plan, error) {
	if err := checkTarget(name, ifRevision); err != nil {
		return nil, err
	}
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var next *document.Plan
	// On a driver.Swapper the first try builds on the file this Store saw last, unread: the
	// compare-and-swap proves it current. Any refusal it meets is checked again on a read.
	guess := s.swapper != nil
	p := s.planPath(name)
	err = retryLostSwaps(name, func() string { return "write " + p }, func() (err error) {
		next, err = s.mutateOnce(ctx, action, name, p, ifRevision, commutes, change, guess)
		guess = false
		return err
	})
	return next, err
}

// rebase decides a change refused by the revision check: when the refusal is that the
// change is based on a revision older than cur, commutes judges it, and when it cannot
// (errUnknownBase) the refusal stands.
func (s *Store) rebase(ctx context.Context, cur *document.Plan, curRaw string, refusal *document.Error, commutes commuteFunc) error {
	if want := refusal.Revision; commutes != nil && refusal.Reason == document.ReasonStale && want < cur.Revision {
		if err := document.CheckFence(ctx, cur, want); err != nil {
			return err // a person's change is read before anything goes past it
		}
		if err := commutes(ctx, want, cur, curRaw); err != errUnknownBase {
			return err
		}
	}
	return document.Fail(*refusal)
}

// errUnknownBase: a commuteFunc cannot judge a change against the revision it was based on.
var errUnknownBase = document.ErrString("the revision a change was based on is no longer kept")

// errWrongGuess: a change built on the file last seen did not get to its compare-and-swap;
// it starts again from a read.
var errWrongGuess = fmt.Errorf("%w: the file last seen was not the one stored", errLostSwap)

// current is the plan stored under name and its file p: with guess, the ones this Store saw
// last when it has them (guessed true), else read.
func (s *Store) current(ctx context.Context, name, p string, guess bool) (cur *document.Plan, raw string, guessed bool, err error) {
	if guess {
		if raw, cur, ok := s.decoded.last(name); ok {
			s.checkApprovalSeal(ctx, cur)
			return cur, raw, true, nil
		}
	}
	cur, raw, err = s.loadFile(ctx, name, p)
	return cur, raw, false, err
}

// mutateOnce is one try of mutateCommuting; p is the plan's file (planPath).
func (s *Store) mutateOnce(ctx context.Context, action document.Action, name, p string, ifRevision *int64, commutes commuteFunc, change func(cur *document.Plan) (*document.Plan, error), guess bool) (*document.Plan, error) {
	loadCtx, slot := withMarkSlot(ctx)
	cur, raw, guessed, err := s.current(loadCtx, name, p, guess)
	if err == nil {
		err = document.CheckFormat(cur)
	}
	if err != nil {
		return nil, err
	}
	if refusal := revisionRefusal(name, cur, ifRevision); refusal != nil {
		if guessed {
			return nil, errWrongGuess
		}
		if err := s.rebase(ctx, cur, raw, refusal, commutes); err != nil {
			return nil, err
		}
	}
	// A guess this Store wrote for an unmarked plan needs no read of the mark: the swap
	// below succeeds only on those very bytes, and only a write of the plan marks it. (A
	// file put back by hand to exactly those bytes after another Store marked the plan is
	// the one rollback this leaves to that Store's next read.)
	var mark planMark
	wroteIt := guessed && s.decoded.unmarked(name, raw)
	if !wroteIt {
		if mark, err = s.markOf(ctx, name, slot); err != nil {
			return nil, err
		}
	}
	if cur != nil && !mark.exists && !wroteIt {
		if err := s.checkWrittenPast(ctx, name, cur, raw); err != nil { // rollback_history.go
			return nil, err
		}
	}
	last, required := int64(0), false
	if cur != nil {
		last = cur.Revision
	} else if last, required, err = s.lastDeleted(ctx, name); err != nil {
		return nil, err
	} else if mark.valid {
		last, required = max(last, mark.rev), required || mark.requires // a deletion the tombstone lost
	}
	if required {
		ctx = document.WithStepGate(ctx) // a deleted plan's requirement is the new plan's (store_tombstone.go)
	}
	next, err := document.ChangeWithApproval(ctx, action, name, cur, change)
	if err != nil {
		if guessed {
			return nil, errWrongGuess
		}
		return nil, err
	}
	if last == math.MaxInt64 {
		return nil, document.Fail(document.Error{Code: document.CodeCorrupt, Reason: document.ReasonRevisionExhausted, Name: name, CurrentRevision: last})
	}
	next.Revision = last + 1
	next.Name = name
	next.StepsRev = stepsRevision(action, cur, next)
	next.UpdatedAt = s.Now().UTC()
	document.SettleHolds(cur, next)
	document.SettleRenewalNotes(action, cur, next)
	next.Action, next.Created, next.ChangedBy = action, cur == nil, document.ChangedBy(ctx, cur, next)
	document.SettleHostMarks(ctx, action, cur, next)
	document.SettleComments(ctx, action, cur, next)
	document.SettleOverBudget(next)
	next.Linked = false // written below as a file of its own
	next.Replaces = ""  // the sum of cur's file, where history keeps it
	if cur != nil && s.keepsEntries() {
		next.Replaces = entrySum(raw)
	}
	governed := governs(mark, cur, next)
	if err := s.sealApproval(ctx, next, action == document.ActionApprove || governed); err != nil {
		return nil, err
	}
	if err := s.sealHeader(ctx, next, governed); err != nil {
		return nil, err
	}
	file := document.EncodePlan(next)
	if err := s.commitKeeping(ctx, name, p, cur, raw, next.Replaces, file, next.Revision); err != nil {
		return nil, err
	}
	if governed {
		s.markWrite(ctx, next)
	}
	if cur == nil {
		s.noteCreated(name, next.Revision) // rollback_history.go
	}
	s.forget(name)
	s.decoded.wrote(name, file, next, !governed)
	return next, nil
}

// stepsRevision is the revision at which next's list of steps (their text and order) last
// changed: a step move never changes it; any other change keeps cur's unless its body's
// step texts differ (a note appended by a rewrite counts). A plan that does not record it counts as changed now.
func stepsRevision(action document.Action, cur, next *document.Plan) int64 {
	if cur == nil || cur.StepsRev == 0 {
		return next.Revision
	}
	if action == document.ActionStep || next.Content == cur.Content || sameStepTexts(document.StepsOf(cur.Content), document.StepsOf(next.Content)) {
		return cur.StepsRev
	}
	return next.Revision
}
