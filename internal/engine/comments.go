package engine

import (
	"context"
	"time"

	"github.com/einoplan/plan/internal/document"
)

// People's comments on steps (api.Comment): a person's Put adds or resolves them, a
// rejection may carry some, an agent's rewrite or note answers them (document.SettleComments,
// document.AnswerByNote), and MarkWaiting refuses to put a plan with open ones to a person.

// defaultCommenter names a person who commented without saying who.
const defaultCommenter = "person"

// checkCommentCaller refuses a comment or resolve in u made by an agent's tool call.
func checkCommentCaller(ctx context.Context, u Update) error {
	if (u.Comment != nil || len(u.Resolve) > 0) && document.ByAgent(ctx) {
		return document.RefuseCommentByAgent(u.Name)
	}
	return nil
}

// applyComments adds u's comment to next and resolves the comments u names, as the
// context's person at now; cur is the plan as read (nil: none, which has no step to comment).
func applyComments(ctx context.Context, u Update, cur, next *document.Plan, now time.Time) error {
	if u.Comment == nil && len(u.Resolve) == 0 {
		return nil
	}
	if cur == nil {
		return notFound(u.Name)
	}
	by := document.ActorOf(ctx)
	if by == "" {
		by = defaultCommenter
	}
	if u.Comment != nil {
		if _, err := document.NewComment(next, u.Comment.Step, u.Comment.Text, by, cur.Revision, now); err != nil {
			return err
		}
	}
	return document.ResolveComments(next, u.Resolve, by, now)
}

// addRejectComments adds a rejection's comments to next, by by at the revision rejected.
func addRejectComments(next *document.Plan, comments []document.Comment, by string, at time.Time) error {
	for _, c := range comments {
		if _, err := document.NewComment(next, c.Step, c.Text, by, next.Revision, at); err != nil {
			return err
		}
	}
	return nil
}
