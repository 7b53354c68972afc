package engine

import (
	"context"
	"errors"
	"strconv"

	"github.com/einoplan/plan/internal/document"
)

// Diff returns what changed in a plan from revision from to revision to (both kept): a
// line per changed header field (title, status, author), then a unified diff of the body
// with three lines of context. Equal revisions give "".
func (s *Store) Diff(ctx context.Context, name string, from, to int64) (string, error) {
	cur, _, err := s.loadExisting(ctx, name)
	if err != nil {
		return "", err
	}
	a, err := s.revisionAt(ctx, cur, from)
	if err != nil {
		return "", err
	}
	b, err := s.revisionAt(ctx, cur, to)
	if err != nil {
		return "", err
	}
	label := func(p *document.Plan) string { return name + "@" + strconv.FormatInt(p.Revision, 10) }
	return document.DiffPlans(a, b, label(a), label(b), 3), nil
}

// ChangesSince returns the current plan and, when revision since is kept, that revision
// (nil otherwise), for a reader who already has since. When since is kept but cannot be
// verified (history.go), unverified says why, so the reader is told instead of left to
// take the whole plan for a diff it did not get.
func (s *Store) ChangesSince(ctx context.Context, name string, since int64) (cur, old *document.Plan, unverified *document.Error, err error) {
	cur, _, err = s.loadExisting(ctx, name)
	if err != nil {
		return nil, nil, nil, err
	}
	old, err = s.revisionAt(ctx, cur, since)
	if document.CodeOf(err) == document.CodeNotFound {
		var e *document.Error
		if errors.As(err, &e) && (e.Reason == document.ReasonRevisionMismatch || e.Reason == document.ReasonRevisionUnverifiable) {
			unverified = e
		}
		return cur, nil, unverified, nil
	}
	return cur, old, nil, err
}
