package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/einoplan/plan/internal/document"
)

// Approve records that by approved revision rev of a plan, only if the plan is still at
// rev (revision_conflict otherwise, and nothing is written): a person approves what they
// saw, never what changed since. The approval is written as revision rev+1, with the same
// body; Plan.Approval.Revision is rev.
func (s *Store) Approve(ctx context.Context, name string, rev int64, by string) (*document.Plan, error) {
	if err := checkApprover(by); err != nil {
		return nil, err
	}
	if rev < 1 {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonRevisionNegative, Field: document.FieldIfRevision, Revision: rev})
	}
	ctx = asPerson(ctx, by) // the history names the approver
	p, err := s.mutate(ctx, document.ActionApprove, name, &rev, func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil {
			return nil, notFound(name)
		}
		next := *cur
		next.Waiting, next.Rejection = nil, nil // decided
		next.Approval = &document.Approval{Revision: cur.Revision, By: by, At: s.Now().UTC()}
		return &next, nil
	})
	if err != nil {
		return nil, err
	}
	s.notify(ctx, document.ActionApprove, p, false)
	return p, nil
}

// ApproveContent replaces the body of a plan still at rev with content and approves the
// result in the same write, so the revision approved is exactly the one written: a person
// who edited the plan before approving it.
func (s *Store) ApproveContent(ctx context.Context, name string, rev int64, content, by string) (*document.Plan, error) {
	if err := checkApprover(by); err != nil {
		return nil, err
	}
	if err := s.checkContent(content); err != nil {
		return nil, err
	}
	ctx = asPerson(ctx, by)
	p, err := s.mutate(ctx, document.ActionApprove, name, &rev, func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil {
			return nil, notFound(name)
		}
		if err := document.CheckNoNewHolds(name, cur, content); err != nil {
			return nil, err
		}
		if err := document.CheckGraph(name, content); err != nil {
			return nil, err
		}
		next := *cur
		next.Waiting, next.Rejection = nil, nil // decided
		next.Content = content
		next.Approval = &document.Approval{Revision: cur.Revision + 1, By: by, At: s.Now().UTC()}
		return &next, nil
	})
	if err != nil {
		return nil, err
	}
	s.notify(ctx, document.ActionApprove, p, false)
	return p, nil
}

// Revoke withdraws a plan's approval; the history names the context's actor (WithActor) as
// who did. A plan that is not approved is returned as it is, without a write.
func (s *Store) Revoke(ctx context.Context, name string) (*document.Plan, error) {
	var unchanged *document.Plan
	p, err := s.mutate(ctx, document.ActionRevoke, name, nil, func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil {
			return nil, notFound(name)
		}
		if cur.Approval == nil {
			unchanged = cur
			return nil, errNothingToRevoke
		}
		next := *cur
		next.Approval = nil
		return &next, nil
	})
	if unchanged != nil && errors.Is(err, errNothingToRevoke) {
		return unchanged, nil
	}
	if err != nil {
		return nil, err
	}
	s.notify(ctx, document.ActionRevoke, p, false)
	return p, nil
}

// errNothingToRevoke ends a revoke of a plan that is not approved before anything is written.
var errNothingToRevoke = &document.Error{Code: document.CodeNotApproved, Reason: document.ReasonNotApproved}

func checkApprover(by string) error {
	if strings.TrimSpace(by) == "" {
		return document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonEmpty, Field: "by"})
	}
	return checkHeaderField("by", by)
}

// lastApproved returns the newest revision that was approved before cur, as far as the kept
// history shows; 0 when none is known.
func (s *Store) lastApproved(ctx context.Context, cur *document.Plan) (int64, error) {
	if !s.historyOn() {
		return 0, nil
	}
	kept, err := s.keptHistory(ctx, cur, 1)
	if err != nil {
		return 0, err
	}
	for _, k := range kept {
		p := k.plan
		if p != cur {
			s.checkApprovalSeal(ctx, p)
		}
		if p.Approval != nil && p.Approval.Revision <= cur.Revision {
			return p.Approval.Revision, nil
		}
	}
	return 0, nil
}

// ApprovalRequest builds what a person is shown to approve plan name at its current revision:
// the plan, its steps with the tools each may use, and what changed since the last approved
// revision when the history still has it.
func (s *Store) ApprovalRequest(ctx context.Context, name, message string) (*document.Plan, document.ApprovalRequest, error) {
	cur, _, err := s.loadExisting(ctx, name)
	if err != nil {
		return nil, document.ApprovalRequest{}, err
	}
	req := document.ApprovalRequest{Name: name, Revision: cur.Revision, Title: cur.Title, Content: cur.Content, Message: message,
		Steps: document.ParseSteps(cur.Content), Budget: document.TotalBudget(cur)}
	if cur.Approval != nil {
		return cur, req, nil
	}
	last, err := s.lastApproved(ctx, cur)
	if err != nil || last == 0 {
		return cur, req, err
	}
	if old, err := s.revisionAt(ctx, cur, last); err == nil {
		req.Diff = document.DiffPlans(old, cur, name+"@"+strconv.FormatInt(last, 10), name+"@"+strconv.FormatInt(cur.Revision, 10), 3)
	}
	return cur, req, nil
}

// asPerson marks ctx as a person's decision made by by: the history names them, and the
// change counts as a host's even when made while resuming an agent's tool call.
func asPerson(ctx context.Context, by string) context.Context {
	return context.WithValue(document.WithActor(ctx, by), document.AgentCallKey{}, false)
}
