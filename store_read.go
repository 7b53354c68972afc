package plan

import (
	"context"
)

// readRaw reads a file bounded to the largest size a plan can have. exists is false only
// when the Backend says the file does not exist.
func (s *Store) readRaw(ctx context.Context, p string) (raw string, exists bool, err error) {
	limit := int64(s.maxContent + headerAllowance)
	if s.limited != nil {
		raw, err = s.limited.ReadAtMost(ctx, p, limit+1)
	} else {
		var fc *FileContent
		fc, err = s.backend.Read(ctx, &ReadRequest{FilePath: p})
		if fc != nil {
			raw = fc.Content
		}
	}
	switch {
	case err == nil:
	case isNotExist(err):
		return "", false, nil
	case ctx.Err() != nil:
		return "", false, canceled(ctx)
	default:
		return "", false, backendError("read "+p, err)
	}
	if int64(len(raw)) > limit {
		return "", true, newError(CodeTooLarge, "stored file %s is larger than %d bytes; delete it or raise the size limit", p, limit)
	}
	return raw, true, nil
}

// load reads and decodes one plan; a missing plan is (nil, "", nil).
func (s *Store) load(ctx context.Context, name string) (*Plan, string, error) {
	raw, exists, err := s.readRaw(ctx, s.planPath(name))
	if err != nil || !exists {
		return nil, "", err
	}
	p, err := DecodePlan(name, raw)
	if err != nil {
		return nil, raw, err
	}
	return p, raw, nil
}

// Get returns the plan called name: not_found, corrupt, too_large or backend_error
// otherwise.
func (s *Store) Get(ctx context.Context, name string) (*Plan, error) {
	if err := ValidateName(name); err != nil {
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

func notFound(name string) *Error {
	return newError(CodeNotFound, "no plan named %s; call list_plans to see the existing names", quoteForMessage(name))
}
