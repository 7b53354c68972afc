package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

// Delete is plan.Store.Delete, whose doc comment is the contract.
func (s *Store) Delete(ctx context.Context, name string, ifRevision *int64) (int64, error) {
	if err := checkTarget(name, ifRevision); err != nil {
		return 0, err
	}
	if ifRevision != nil && *ifRevision == 0 {
		return 0, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonDeleteCreateOnly, Name: name, Field: document.FieldIfRevision})
	}
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return 0, err
	}
	locked := true
	defer func() {
		if locked {
			unlock()
		}
	}()
	var f deleteTarget
	err = retryLostSwaps(name, func() string { return "delete " + s.planPath(name) }, func() (err error) {
		if f, err = s.loadForDelete(ctx, name, ifRevision); err != nil {
			return err
		}
		if !f.exists {
			return notFound(name)
		}
		if err := checkRevision(name, f.plan, ifRevision); err != nil {
			return err
		}
		// A file put back by hand leaves a tombstone past what its history shows was written
		// (rollback_history.go), which the file's own header would not record.
		past, err := s.deletedPast(ctx, name, f)
		if err != nil {
			return err
		}
		f.revision = max(f.revision, past)
		// A tombstone moved into place cannot name the deleter: where one is known, it is
		// written, and the plan file is moved there only when that fails (a full disk).
		by := document.ActorOf(ctx)
		if by == "" && past == 0 {
			if buried, err := s.buryByRename(ctx, name, f); buried || err != nil {
				return err
			}
		}
		if f.revision > 0 || f.requiresApproval {
			if err := s.raiseTombstone(ctx, name, f.revision, by, f.requiresApproval); err != nil {
				if by != "" {
					if buried, berr := s.buryByRename(ctx, name, f); buried || berr != nil {
						return berr
					}
				}
				return err
			}
		}
		return s.remove(ctx, s.planPath(name), f.raw, f.special)
	})
	if err != nil {
		return 0, err
	}
	s.markDeleted(ctx, name, f) // rollback_mark.go
	s.forget(name)
	s.forgetEntries(name)
	s.dropHistory(ctx, name, f.revision)
	unlock() // OnChange runs outside the Store's locks
	locked = false
	if f.plan != nil {
		s.notify(ctx, document.ActionDelete, f.plan, false)
		return f.plan.Revision, nil
	}
	s.notify(ctx, document.ActionDelete, &document.Plan{Name: name}, false)
	return 0, nil
}

// deleteTarget is what Delete found at a plan's path.
type deleteTarget struct {
	exists bool
	plan   *document.Plan // nil when the file does not decode or is over the size limit
	// raw is the whole file when the Backend is a driver.Swapper (its conditional delete compares
	// it), and otherwise as far as it was read.
	raw string
	// revision is the revision the file reached: the plan's, or for a file that does not
	// decode the one its header still names, so the tombstone keeps revisions from
	// repeating after a corrupt plan is deleted and written again. 0 when unknown.
	revision int64
	// special: the entry can never be a plan (driver.ErrNotRegularFile); it is removed as it is.
	special bool
	// requiresApproval: the plan, or the header of a file that does not decode, records the
	// approval requirement; its tombstone keeps it.
	requiresApproval bool
}

// loadForDelete is load that tolerates, when the delete is unguarded, an entry that does not
// decode, is over the size limit or is not a plan file: deleting it is how it is recovered.
func (s *Store) loadForDelete(ctx context.Context, name string, ifRevision *int64) (deleteTarget, error) {
	p := s.planPath(name)
	raw, exists, _, err := s.readPlanFile(ctx, p)
	tooLarge := document.CodeOf(err) == document.CodeTooLarge
	special := errors.Is(err, driver.ErrNotRegularFile)
	if err != nil && (ifRevision != nil || !(tooLarge || special)) {
		return deleteTarget{}, err
	}
	switch {
	case !exists:
		return deleteTarget{}, nil
	case special:
		return deleteTarget{exists: true, special: true}, nil
	case !tooLarge:
		plan, derr := document.DecodePlan(name, raw)
		if derr == nil {
			return deleteTarget{exists: true, plan: plan, raw: raw, revision: plan.Revision, requiresApproval: plan.RequiresApproval}, nil
		}
		if ifRevision != nil {
			return deleteTarget{}, derr
		}
		rev, _ := headerRevision(raw)
		return deleteTarget{exists: true, raw: raw, revision: rev, requiresApproval: headerRequiresApproval(raw)}, nil
	}
	// Over the size limit: read the header for its revision, and the whole file where the
	// conditional delete of a driver.Swapper compares it or no bounded read is offered. This
	// explicit recovery is the one operation that reads an oversized file whole.
	if s.limited != nil && s.swapper == nil {
		if raw, err = s.limited.ReadAtMost(ctx, p, headerAllowance); err != nil {
			raw = ""
		}
	} else {
		fc, err := s.Backend.Read(ctx, &driver.ReadRequest{FilePath: p, Offset: 1, Limit: wholeFileLines(1 << 40)})
		switch {
		case err == nil && fc != nil:
			raw = fc.Content
		case IsNotExist(err):
			return deleteTarget{}, nil
		case ctx.Err() != nil:
			return deleteTarget{}, Canceled(ctx)
		default:
			return deleteTarget{}, BackendError("read "+p, err)
		}
	}
	rev, _ := headerRevision(raw)
	return deleteTarget{exists: true, raw: raw, revision: rev, requiresApproval: headerRequiresApproval(raw)}, nil
}

// buryByRename moves a decoded plan file onto its tombstone, keeping only its header (which
// names the revision), so the plan is deleted and its revision recorded in one step that
// needs no new data blocks. It reports false, and leaves everything as it was, where that
// cannot be done: no driver.Renamer, a driver.Swapper (a rename is not conditional), a tombstone already at
// a higher revision, or a failed rename.
func (s *Store) buryByRename(ctx context.Context, name string, f deleteTarget) (bool, error) {
	if s.renamer == nil || s.swapper != nil || f.plan == nil || f.revision <= 0 {
		return false, nil
	}
	if last, err := s.lastDeletedRevision(ctx, name); err != nil || last >= f.revision {
		return false, nil
	}
	tomb := s.tombstonePath(name)
	keep := int64(-1)
	if end := strings.Index(f.raw, "\n---\n"); strings.HasPrefix(f.raw, document.HeaderFence) && end >= 0 {
		keep = int64(end + len("\n---\n"))
	}
	if err := s.renamer.Rename(ctx, s.planPath(name), tomb, keep); err != nil {
		if ctx.Err() != nil {
			return false, Canceled(ctx)
		}
		return false, nil
	}
	return true, nil
}
