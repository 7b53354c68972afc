package engine

import (
	"context"

	"github.com/einoplan/plan/internal/document"
)

// WaitDecision waits until a person decides on revision rev of plan name, on any Store of
// the same storage (any process or machine: the board, planctl, another host), and returns
// the decision: Approved when the plan is approved at rev or a later revision, not Approved
// with By and Feedback when revision rev was rejected (Store.Reject). A decision made
// before the call counts while the plan, or the history it keeps, still shows it. It
// returns not_found when the plan is deleted, and canceled when ctx ends first. A host
// passes the decision to the paused run as the resume data of its ApprovalRequest
// (ApprovalRequest.Revision is rev).
func (s *Store) WaitDecision(ctx context.Context, name string, rev int64) (document.ApprovalDecision, error) {
	if err := document.ValidateName(name); err != nil {
		return document.ApprovalDecision{}, err
	}
	if rev < 1 {
		return document.ApprovalDecision{}, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonRevisionNegative, Field: document.FieldIfRevision, Revision: rev})
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	changes, err := s.Watch(wctx) // first, so no decision falls between it and the look below
	if err != nil {
		return document.ApprovalDecision{}, err
	}
	for {
		if d, ok, err := s.decisionOn(ctx, name, rev); err != nil || ok {
			return d, err
		}
		for waiting := true; waiting; {
			select {
			case <-ctx.Done():
				return document.ApprovalDecision{}, Canceled(ctx)
			case c, open := <-changes:
				if !open {
					return document.ApprovalDecision{}, Canceled(ctx)
				}
				waiting = c.Name != name && c.Action != document.ActionResync
			}
		}
	}
}

// decisionOn looks for a decision on revision rev of plan name: the first one the kept
// history shows after rev, else what the plan carries now.
func (s *Store) decisionOn(ctx context.Context, name string, rev int64) (document.ApprovalDecision, bool, error) {
	cur, _, err := s.loadExisting(ctx, name)
	if err != nil {
		return document.ApprovalDecision{}, false, err
	}
	if cur.Revision <= rev {
		return document.ApprovalDecision{}, false, nil
	}
	kept, err := s.keptHistory(ctx, cur, rev+1)
	if err != nil {
		return document.ApprovalDecision{}, false, err
	}
	for i := len(kept) - 1; i >= 0; i-- {
		p := kept[i].plan
		if p != cur {
			s.checkApprovalSeal(ctx, p)
		}
		if d, ok := decisionIn(p, rev); ok && (p.Action == document.ActionApprove || p.Action == document.ActionReject) {
			return d, true, nil
		}
	}
	d, ok := decisionIn(cur, rev)
	return d, ok, nil
}

// decisionIn is the decision on revision rev that p carries: its approval of rev or later,
// or its rejection of rev.
func decisionIn(p *document.Plan, rev int64) (document.ApprovalDecision, bool) {
	if a := p.Approval; a != nil && a.Revision >= rev {
		return document.ApprovalDecision{Approved: true, By: a.By}, true
	}
	if r := p.Rejection; r != nil && r.Revision == rev {
		return document.ApprovalDecision{By: r.By, Feedback: r.Feedback}, true
	}
	return document.ApprovalDecision{}, false
}
