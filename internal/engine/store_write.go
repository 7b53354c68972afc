package engine

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/einoplan/plan/internal/document"
)

// Put is plan.Store.Put, whose doc comment is the contract.
func (s *Store) Put(ctx context.Context, u Update) (*document.Plan, error) {
	if u.Content != nil {
		if err := checkContent(*u.Content, s.maxContent); err != nil {
			return nil, err
		}
	}
	for _, f := range [...]struct{ key, value string }{{"title", u.Title}, {"status", u.Status}, {"author", u.Author}} {
		if err := checkHeaderField(f.key, f.value); err != nil {
			return nil, err
		}
	}
	if err := document.CheckBudget(u.Budget); err != nil {
		return nil, err
	}
	if err := checkCommentCaller(ctx, u); err != nil {
		return nil, err
	}
	planBudget := u.Budget
	if u.BudgetStep != 0 {
		planBudget = "" // the step's, written in its text (stepBudget)
		if u.Content == nil {
			ctx = document.WithBudgetRaise(ctx) // a person's decision: keeps the approval
		}
	}
	var created bool
	p, err := s.mutate(ctx, document.ActionWrite, u.Name, u.IfRevision, func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil {
			if u.Comment != nil || len(u.Resolve) > 0 {
				return nil, notFound(u.Name)
			}
			if u.Content == nil {
				return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNeedsContent, Name: u.Name, Field: document.FieldContent})
			}
			if err := document.CheckNoNewHolds(u.Name, nil, *u.Content); err != nil {
				return nil, err
			}
			if err := document.CheckGraph(u.Name, *u.Content); err != nil {
				return nil, err
			}
			body, err := stepBudget(*u.Content, u)
			if err != nil {
				return nil, err
			}
			created = true
			next := &document.Plan{Title: u.Title, Status: u.Status, Author: u.Author, Budget: planBudget, Content: body}
			if next.Title == "" {
				next.Title = document.TitleFromContent(next.Content)
			}
			if next.Title == "" {
				next.Title = u.Name
			}
			if next.Status == "" {
				next.Status = defaultStatus
			}
			if next.Author == "" {
				next.Author = document.ActorOf(ctx) // the agent whose tool call creates it
			}
			if next.Author == "" {
				next.Author = s.author
			}
			return next, nil
		}
		next := *cur
		if u.Content != nil {
			if err := document.CheckNoNewHolds(u.Name, cur, *u.Content); err != nil {
				return nil, err
			}
			if err := document.CheckGraph(u.Name, *u.Content); err != nil {
				return nil, err
			}
			next.Content = *u.Content
		}
		var err error
		if next.Content, err = stepBudget(next.Content, u); err != nil {
			return nil, err
		}
		keepUnlessEmpty(&next.Title, u.Title)
		keepUnlessEmpty(&next.Status, u.Status)
		keepUnlessEmpty(&next.Author, u.Author)
		keepUnlessEmpty(&next.Budget, planBudget)
		if err := applyComments(ctx, u, cur, &next, s.Now()); err != nil {
			return nil, err
		}
		return &next, nil
	})
	if err != nil {
		return nil, err
	}
	s.notify(ctx, document.ActionWrite, p, created)
	return p, nil
}

// stepBudget is body with the budget u gives step u.BudgetStep, or body when u sets none.
func stepBudget(body string, u Update) (string, error) {
	if u.BudgetStep == 0 {
		return body, nil
	}
	return document.SetStepBudget(body, u.BudgetStep, u.Budget)
}

func keepUnlessEmpty(field *string, value string) {
	if value != "" {
		*field = value
	}
}

// SetStatus is plan.Store.SetStatus, whose doc comment is the contract.
func (s *Store) SetStatus(ctx context.Context, name, status string, ifRevision *int64) (*document.Plan, error) {
	if strings.TrimSpace(status) == "" {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonEmpty, Name: name, Field: "status"})
	}
	if err := checkHeaderField("status", status); err != nil {
		return nil, err
	}
	p, err := s.mutateCommuting(ctx, document.ActionStatus, name, ifRevision, s.statusUnchanged, func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil {
			return nil, notFound(name)
		}
		next := *cur
		next.Status = status
		return &next, nil
	})
	if err != nil {
		return nil, err
	}
	s.notify(ctx, document.ActionStatus, p, false)
	return p, nil
}

// keptRevisionOf is revision want of the plan at cur while history keeps it, else nil.
func (s *Store) keptRevisionOf(ctx context.Context, cur *document.Plan, curRaw string, want int64) (*document.Plan, error) {
	base, err := s.revisionAt(ctx, cur, want)
	if document.CodeOf(err) == document.CodeNotFound {
		return nil, nil
	}
	return base, err
}

// statusUnchanged lets a status change made on an older revision through while nobody has
// changed the status since.
func (s *Store) statusUnchanged(ctx context.Context, want int64, cur *document.Plan, curRaw string) error {
	base, err := s.keptRevisionOf(ctx, cur, curRaw, want)
	if err != nil {
		return err
	}
	if base == nil || base.Status != cur.Status {
		return errUnknownBase
	}
	return nil
}

func checkContent(content string, limit int) error {
	if !utf8.ValidString(content) {
		return document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNotUTF8, Field: document.FieldContent})
	}
	if strings.TrimSpace(content) == "" {
		return document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonEmpty, Field: document.FieldContent})
	}
	if len(content) > limit {
		return document.Fail(document.Error{Code: document.CodeTooLarge, Reason: document.ReasonContentTooLarge, Field: document.FieldContent, Size: int64(len(content)), Limit: int64(limit)})
	}
	return nil
}

func checkHeaderField(key, value string) error {
	if len(value) > document.MaxHeaderField {
		return document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonTooLong, Field: key, Size: int64(len(value)), Limit: document.MaxHeaderField})
	}
	if !utf8.ValidString(value) {
		return document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNotUTF8, Field: key})
	}
	return nil
}
