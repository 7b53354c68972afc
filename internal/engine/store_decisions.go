package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/einoplan/plan/internal/document"
)

// People's decisions on a plan, each a write of its own kept in history: approvals,
// revocations and rejections, and a run's wait for the next decision.

// Approve is plan.Store.Approve, whose doc comment is the contract.
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
	if err := checkContent(content, s.maxContent); err != nil {
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

// Revoke is plan.Store.Revoke, whose doc comment is the contract.
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

// WaitDecision is plan.Store.WaitDecision, whose doc comment is the contract.
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

// maxRejectFeedback bounds what a person says with a rejection.
const maxRejectFeedback = MaxApprovalFeedback

// Reject is plan.Store.Reject, whose doc comment is the contract.
// comments, when given, are added to the plan in the same write (ApprovalDecision.Comments).
func (s *Store) Reject(ctx context.Context, name string, rev int64, by, feedback string, comments ...document.Comment) (*document.Plan, error) {
	if err := checkApprover(by); err != nil {
		return nil, err
	}
	if rev < 1 {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonRevisionNegative, Field: document.FieldIfRevision, Revision: rev})
	}
	if !utf8.ValidString(feedback) {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNotUTF8, Field: "feedback"})
	}
	if len(feedback) > maxRejectFeedback {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonTooLong, Field: "feedback", Size: int64(len(feedback)), Limit: maxRejectFeedback})
	}
	ctx = asPerson(ctx, by)
	p, err := s.mutate(ctx, document.ActionReject, name, &rev, func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil {
			return nil, notFound(name)
		}
		next := *cur
		next.Approval = nil
		next.Waiting = nil
		next.Rejection = &document.Rejection{Revision: cur.Revision, By: by, At: s.Now().UTC(), Feedback: strings.TrimSpace(feedback)}
		if err := addRejectComments(&next, comments, by, s.Now()); err != nil {
			return nil, err
		}
		return &next, nil
	})
	if err != nil {
		return nil, err
	}
	s.notify(ctx, document.ActionReject, p, false)
	return p, nil
}

// MarkWaiting records that agent's run waits for a decision on plan name, at the revision
// it writes (rev+1, the body as it was), only while the plan is at rev and no comment on it
// is open (CodeCommentsOpen). It drops an earlier rejection: the run asks again.
func (s *Store) MarkWaiting(ctx context.Context, name string, rev int64, agent string) (*document.Plan, error) {
	p, err := s.mutate(ctx, document.ActionAwait, name, &rev, func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil {
			return nil, notFound(name)
		}
		if err := document.RefuseOpenComments(cur); err != nil {
			return nil, err
		}
		next := *cur
		next.Rejection = nil
		next.Waiting = &document.Waiting{Revision: cur.Revision + 1, Agent: agent, Since: s.Now().UTC()}
		return &next, nil
	})
	if err != nil {
		return nil, err
	}
	s.notify(ctx, document.ActionAwait, p, false)
	return p, nil
}

// MaxApprovalFeedback bounds a person's feedback on a decision.
const MaxApprovalFeedback = 8 << 10
