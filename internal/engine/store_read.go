package engine

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/einoplan/plan/internal/document"
)

// load reads and decodes one plan; a missing plan is (nil, "", nil).
func (s *Store) load(ctx context.Context, name string) (*document.Plan, string, error) {
	raw, exists, err := s.readRaw(ctx, s.planPath(name))
	if err != nil || !exists {
		return nil, "", err
	}
	text, repaired := raw, !utf8.ValidString(raw)
	if repaired {
		text = strings.ToValidUTF8(raw, "\uFFFD")
	}
	p, err := s.decoded.decode(name, text)
	if err != nil {
		return nil, raw, err
	}
	p.Repaired = repaired
	s.checkApprovalSeal(ctx, p)
	return p, raw, nil
}

// Get is plan.Store.Get, whose doc comment is the contract.
func (s *Store) Get(ctx context.Context, name string) (*document.Plan, error) {
	if err := document.ValidateName(name); err != nil {
		return nil, err
	}
	p, _, err := s.load(ctx, name)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, notFound(name)
	}
	return p, nil
}

func notFound(name string) *document.Error {
	return document.Fail(document.Error{Code: document.CodeNotFound, Reason: document.ReasonNoPlan, Name: name})
}

// loadExisting is load for a plan that must exist.
func (s *Store) loadExisting(ctx context.Context, name string) (*document.Plan, string, error) {
	if err := document.ValidateName(name); err != nil {
		return nil, "", err
	}
	p, raw, err := s.load(ctx, name)
	if err != nil {
		return nil, "", err
	}
	if p == nil {
		return nil, "", notFound(name)
	}
	return p, raw, nil
}
