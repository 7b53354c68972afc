package engine

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/einoplan/plan/internal/document"
)

// maxRejectFeedback bounds what a person says with a rejection.
const maxRejectFeedback = MaxApprovalFeedback

// Reject records that by turned down revision rev of a plan, with feedback, only if the plan
// is still at rev (revision_conflict otherwise, and nothing is written): a person rejects
// what they saw. It is a change of its own (ActionReject, revision rev+1, the body as it
// was): History keeps it with by and the feedback, Watch delivers it, and a run waiting
// with WaitDecision gets it. An approval the plan carried is withdrawn; Plan.Rejection
// holds the rejection until the plan is approved or a run asks again.
func (s *Store) Reject(ctx context.Context, name string, rev int64, by, feedback string) (*document.Plan, error) {
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
		return &next, nil
	})
	if err != nil {
		return nil, err
	}
	s.notify(ctx, document.ActionReject, p, false)
	return p, nil
}

// MarkWaiting records that agent's run waits for a decision on plan name, at the revision
// it writes (rev+1, the body as it was), only while the plan is at rev. It drops an earlier
// rejection: the run asks again.
func (s *Store) MarkWaiting(ctx context.Context, name string, rev int64, agent string) (*document.Plan, error) {
	p, err := s.mutate(ctx, document.ActionAwait, name, &rev, func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil {
			return nil, notFound(name)
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
