package engine

import (
	"context"
	"errors"
	"iter"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

// A tombstone, <BaseDir>/.deleted/NAME, records the last revision a deleted plan reached, so
// revisions never repeat for a name and a writer holding a revision of a deleted plan cannot
// overwrite a new plan of the same name. It holds that revision as a number; or, when the
// deleter is known, a header naming the revision and who deleted the plan (hdrDeletedBy); or,
// when the plan file was moved there, the plan file's header. The approval requirement
// (Plan.RequiresApproval) belongs to the plan, not to one life of it: a tombstone keeps it as
// the header line requires_approval, and a plan written again under that name has it from
// its first revision (mutateOnce), whoever deletes or writes it.

// hdrDeletedBy names who deleted a plan, in a tombstone written as a header. A plan file's
// header never has it, so a tombstone moved into place names nobody. Readers that know only
// the revision (earlier releases too) skip it.
const hdrDeletedBy = "deleted_by"

// tombstoneContent is the tombstone of a plan deleted at revision rev by by ("": unknown),
// keeping its approval requirement when it had one.
func tombstoneContent(rev int64, by string, requiresApproval bool) string {
	if by == "" && !requiresApproval {
		return strconv.FormatInt(rev, 10) + "\n"
	}
	var b strings.Builder
	b.WriteString(document.HeaderFence + "revision: " + strconv.FormatInt(rev, 10) + "\n")
	if by != "" {
		document.WriteHeaderString(&b, hdrDeletedBy, by)
	}
	if requiresApproval {
		b.WriteString(document.HdrRequiresApproval + ": true\n")
	}
	b.WriteString(document.HeaderFence)
	return b.String()
}

// headerRequiresApproval reports whether the header of raw, a tombstone or a plan file that
// may not decode, records the approval requirement.
func headerRequiresApproval(raw string) bool {
	for v := range headerValues(raw, document.HdrRequiresApproval) {
		if v == "true" {
			return true
		}
	}
	return false
}

// tombstoneDeleter returns who a tombstone says deleted the plan, "" when it does not say.
func tombstoneDeleter(raw string) string {
	for v := range headerValues(raw, hdrDeletedBy) {
		var by string
		if document.DecodeJSONString(v, &by) == nil {
			return by
		}
	}
	return ""
}

// lastDeletion returns the revision a plan's tombstone records and who it says deleted the
// plan; 0 and "" when there is no tombstone or it cannot be read.
func (s *Store) lastDeletion(ctx context.Context, name string) (rev int64, by string) {
	raw, exists, err := s.readRaw(ctx, s.tombstonePath(name))
	if err != nil || !exists {
		return 0, ""
	}
	return tombstoneRevision(raw), tombstoneDeleter(raw)
}

// tombstoneRevision reads a tombstone's revision; anything unreadable counts as none.
func tombstoneRevision(raw string) int64 {
	if strings.HasPrefix(raw, document.HeaderFence) {
		rev, _ := headerRevision(raw)
		return rev
	}
	n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// lastDeletedRevision returns the revision a deleted plan of that name reached, or 0.
func (s *Store) lastDeletedRevision(ctx context.Context, name string) (int64, error) {
	rev, _, err := s.lastDeleted(ctx, name)
	return rev, err
}

// lastDeleted returns the revision a deleted plan of that name reached, or 0, and whether it
// was under the approval requirement. A stray entry at the tombstone's path (a folder, a
// link, a huge file) never blocks the name.
func (s *Store) lastDeleted(ctx context.Context, name string) (rev int64, requiresApproval bool, err error) {
	raw, exists, err := s.readRaw(ctx, s.tombstonePath(name))
	switch code := document.CodeOf(err); {
	case code == document.CodeCorrupt || code == document.CodeTooLarge || strayTombstoneFolder(err):
		return 0, false, nil
	case err != nil || !exists:
		return 0, false, err
	}
	return tombstoneRevision(raw), headerRequiresApproval(raw), nil
}

// strayTombstoneFolder reports a read that failed because something other than a folder
// inside the storage stands where the tombstones' folder goes (a file, a link leading out).
func strayTombstoneFolder(err error) bool {
	return errors.Is(err, syscall.ENOTDIR) || errors.Is(err, driver.ErrOutsideRoot)
}

// raiseTombstone records that name reached revision rev and was deleted by by ("":
// unknown), under the approval requirement when requiresApproval, never lowering what is
// recorded nor dropping a requirement it records.
func (s *Store) raiseTombstone(ctx context.Context, name string, rev int64, by string, requiresApproval bool) error {
	p := s.tombstonePath(name)
	return retryLostSwaps(name, func() string { return "record the deletion of " + name }, func() error {
		raw, exists, err := s.readRaw(ctx, p)
		if strayTombstoneFolder(err) {
			// Every plan's delete may find it: one clears it, the others then find its folder.
			unlock, lerr := s.lockFolderEntry(ctx, tombstonesLock)
			if lerr != nil {
				return lerr
			}
			defer unlock()
			raw, exists, err = s.readRaw(ctx, p)
		}
		stray := p // a stray entry where the tombstone goes
		if strayTombstoneFolder(err) {
			stray = path.Dir(p) // a file or a link where the tombstones' folder goes
		}
		if errors.Is(err, driver.ErrNotRegularFile) || document.CodeOf(err) == document.CodeTooLarge || strayTombstoneFolder(err) {
			if err := s.remove(ctx, stray, "", true); err != nil {
				return err
			}
			raw, exists, err = "", false, nil
		}
		if err != nil {
			return err
		}
		requires := requiresApproval
		var old *string
		if exists {
			had := headerRequiresApproval(raw)
			if tombstoneRevision(raw) >= rev && (had || !requires) {
				return nil
			}
			old, rev, requires = &raw, max(rev, tombstoneRevision(raw)), requires || had
		}
		return s.commit(ctx, p, old, tombstoneContent(rev, by, requires), "")
	})
}

// headerRevision returns the revision named in the header of a plan file that may not
// decode, reading only the header's first headerAllowance bytes.
func headerRevision(raw string) (rev int64, found bool) {
	for v := range headerValues(raw, "revision") {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
			rev, found = n, true
		}
	}
	return rev, found
}

// headerValues yields, in order, the text after "key: " on each line of raw's header that
// has it, reading only the header's first headerAllowance bytes.
func headerValues(raw, key string) iter.Seq[string] {
	return func(yield func(string) bool) {
		rest, ok := strings.CutPrefix(raw[:min(len(raw), headerAllowance)], document.HeaderFence)
		if !ok {
			return
		}
		for line := range strings.Lines(rest) {
			line = strings.TrimRight(line, "\r\n")
			if line == "---" {
				return
			}
			if v, ok := strings.CutPrefix(line, key+": "); ok && !yield(v) {
				return
			}
		}
	}
}
