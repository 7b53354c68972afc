package plan

import (
	"context"
	"errors"
	"strconv"
	"strings"
)

// lastDeletedRevision returns the revision a deleted plan of that name reached, or 0.
// Revisions never repeat for a name, so a writer holding a revision of a deleted plan
// cannot overwrite a new plan that took the same name.
func (s *Store) lastDeletedRevision(ctx context.Context, name string) (int64, error) {
	raw, exists, err := s.readRaw(ctx, s.tombstonePath(name))
	if err != nil || !exists {
		return 0, err
	}
	n, perr := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if perr != nil || n < 0 {
		return 0, nil
	}
	return n, nil
}

// Delete removes a plan. An unguarded delete also removes a plan file that does not
// decode, which is how a corrupt plan is recovered.
func (s *Store) Delete(ctx context.Context, name string, ifRevision *int64) (int64, error) {
	if err := ValidateName(name); err != nil {
		return 0, err
	}
	if err := checkIfRevision(ifRevision); err != nil {
		return 0, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	var cur *Plan
	for attempt := 0; ; attempt++ {
		var f deleteTarget
		f, err = s.loadForDelete(ctx, name, ifRevision)
		if err != nil {
			return 0, err
		}
		if !f.exists {
			return 0, notFound(name)
		}
		cur = f.plan
		if ifRevision != nil && *ifRevision == 0 {
			return 0, newError(CodeInvalidArgument, "last_known_revision 0 means create-only; give the plan's current revision to delete it, or omit it")
		}
		if err := checkRevision(name, cur, ifRevision); err != nil {
			return 0, err
		}
		if f.revision > 0 {
			if err := s.raiseTombstone(ctx, name, f.revision); err != nil {
				return 0, err
			}
		}
		err = s.remove(ctx, s.planPath(name), f.raw)
		if errors.Is(err, errLostSwap) && attempt < maxSwapAttempts {
			continue
		}
		if errors.Is(err, errLostSwap) {
			return 0, backendError("delete "+s.planPath(name)+" (too many concurrent writers)", err)
		}
		if err != nil {
			return 0, err
		}
		break
	}
	s.forget(name)
	var rev int64
	if cur != nil {
		rev = cur.Revision
		s.notify(ctx, ActionDelete, cur, false)
	} else {
		s.notify(ctx, ActionDelete, &Plan{Name: name}, false)
	}
	return rev, nil
}

// deleteTarget is what Delete found at a plan's path.
type deleteTarget struct {
	exists bool
	plan   *Plan // nil when the file does not decode or is over the size limit
	// raw is the whole file when the Backend is a Swapper (its conditional delete compares
	// it), and otherwise as far as it was read.
	raw string
	// revision is the revision the file reached: the plan's, or for a file that does not
	// decode the one its header still names, so the tombstone keeps revisions from
	// repeating after a corrupt plan is deleted and written again. 0 when unknown.
	revision int64
}

// loadForDelete is load that tolerates, when the delete is unguarded, a file that does not
// decode or is over the size limit: deleting it is how such a plan is recovered.
func (s *Store) loadForDelete(ctx context.Context, name string, ifRevision *int64) (deleteTarget, error) {
	p := s.planPath(name)
	raw, exists, err := s.readRaw(ctx, p)
	tooLarge := CodeOf(err) == CodeTooLarge
	if err != nil && !(tooLarge && ifRevision == nil) {
		return deleteTarget{}, err
	}
	if !exists {
		return deleteTarget{}, nil
	}
	if !tooLarge {
		plan, derr := DecodePlan(name, raw)
		if derr == nil {
			return deleteTarget{exists: true, plan: plan, raw: raw, revision: plan.Revision}, nil
		}
		if ifRevision != nil {
			return deleteTarget{}, derr
		}
		rev, _ := headerRevision(raw)
		return deleteTarget{exists: true, raw: raw, revision: rev}, nil
	}
	// Over the size limit: read the header for its revision, and the whole file where the
	// conditional delete of a Swapper compares it or no bounded read is offered. This
	// explicit recovery is the one operation that reads an oversized file whole.
	if s.limited != nil && s.swapper == nil {
		if raw, err = s.limited.ReadAtMost(ctx, p, headerAllowance); err != nil {
			raw = ""
		}
	} else {
		fc, err := s.backend.Read(ctx, &ReadRequest{FilePath: p})
		switch {
		case err == nil && fc != nil:
			raw = fc.Content
		case isNotExist(err):
			return deleteTarget{}, nil
		case ctx.Err() != nil:
			return deleteTarget{}, canceled(ctx)
		default:
			return deleteTarget{}, backendError("read "+p, err)
		}
	}
	rev, _ := headerRevision(raw)
	return deleteTarget{exists: true, raw: raw, revision: rev}, nil
}

// headerRevision returns the revision named in the header of a plan file that may not
// decode, reading only the header's first headerAllowance bytes.
func headerRevision(raw string) (int64, bool) {
	rest, ok := strings.CutPrefix(raw[:min(len(raw), headerAllowance)], headerFence)
	if !ok {
		return 0, false
	}
	var rev int64
	var found bool
	for line := range strings.Lines(rest) {
		line = strings.TrimRight(line, "\r\n")
		if line == "---" {
			break
		}
		if v, ok := strings.CutPrefix(line, "revision: "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
				rev, found = n, true
			}
		}
	}
	return rev, found
}

func (s *Store) remove(ctx context.Context, p, old string) error {
	if ctx.Err() != nil {
		return canceled(ctx)
	}
	if s.swapper != nil {
		ok, err := s.swapper.CompareAndDelete(ctx, &DeleteRequest{FilePath: p}, old)
		if err != nil {
			return backendError("delete "+p, err)
		}
		if !ok {
			return errLostSwap
		}
		return nil
	}
	if err := s.backend.Delete(ctx, &DeleteRequest{FilePath: p}); err != nil && !isNotExist(err) {
		return backendError("delete "+p, err)
	}
	return nil
}

// raiseTombstone records that name reached revision rev, never lowering what is recorded.
func (s *Store) raiseTombstone(ctx context.Context, name string, rev int64) error {
	p := s.tombstonePath(name)
	for attempt := 0; attempt < maxSwapAttempts; attempt++ {
		raw, exists, err := s.readRaw(ctx, p)
		if err != nil {
			return err
		}
		if n, perr := strconv.ParseInt(strings.TrimSpace(raw), 10, 64); exists && perr == nil && n >= rev {
			return nil
		}
		var old *string
		if exists {
			old = &raw
		}
		err = s.commit(ctx, p, old, strconv.FormatInt(rev, 10)+"\n")
		if !errors.Is(err, errLostSwap) {
			return err
		}
	}
	return backendError("record the deletion of "+name, errLostSwap)
}
