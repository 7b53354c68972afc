package engine

import (
	"context"

	"github.com/einoplan/plan/internal/document"
)

// A plan nobody governs has no mark (rollback_mark.go), so its writes cost no write more;
// its history stands in for the mark. An entry of revision r exists only once a write
// replaced revision r, so a plan file at a revision older than an entry's was put back by
// hand, and the write that would build on it is refused (rolled_back), since it would
// write a revision number a second time; a delete of it records the newest revision the
// history shows, so the plan written again starts past it.
//
// Where the Backend keeps the entry in the very request that writes the next revision
// (driver.KeepingSwapper, driver.KeepingWriter), an entry of the file's own revision that
// holds the file's bytes shows the next one was written too, so a file put back one
// revision catches as well. Where the entry is written just before (keepBefore), a crash
// between the two leaves that entry behind a file that was never replaced: there only an
// entry of the file's revision with other bytes counts (and none on a driver.Swapper, where a
// write that lost its swap leaves one), so a file put back byte for byte by one revision is
// caught only by a mark there. A LocalBackend that cannot swap names (off Linux) copies the
// entry just before too: a crash between the two reads as a file put back by one revision,
// which a person's delete recovers.
//
// The check reads the history's folder only where this process does not know it through the
// file's revision (the entries it keeps for pruning, history_write.go), and never on a write
// built on the file this Store wrote last (a driver.Swapper's guess), whose swap succeeds
// only on those bytes, so a change stays one statement on PostgreSQL. What this process knows
// is listed again every few prunes; until then a file put back after another process wrote
// the plan is caught by that process, or by this one's next listing. With history off nothing is kept to compare with.

// writtenPast is the newest revision the history of plan name shows was written after cur,
// whose file is raw, or 0 when it shows none.
func (s *Store) writtenPast(ctx context.Context, name string, cur *document.Plan, raw string) (past int64, err error) {
	if !s.keepsEntries() {
		return 0, nil
	}
	if _, known := s.knownEntriesAt(name, cur.Revision); known {
		return 0, nil // this process wrote cur's revision last, and no entry of it or later since
	}
	entries, err := s.listHistory(ctx, name)
	if err != nil {
		return 0, err
	}
	defer func() {
		if past == 0 && err == nil {
			s.keepEntries(name, cur.Revision, entries, true) // so the next writes need no listing
		}
	}()
	sum := ""
	for _, e := range entries { // newest first
		if e.rev < cur.Revision || e.legacy {
			break
		}
		if e.rev > cur.Revision {
			past = max(past, e.rev+1)
			continue
		}
		if sum == "" {
			sum = entrySum(raw)
		}
		if !s.keepsWithTheWrite() && (e.sum == sum || s.swapper != nil) {
			continue // what a crash before the write left, or a write that lost its swap
		}
		if _, fault, err := s.readKept(ctx, name, e); err != nil {
			return 0, err
		} else if fault == 0 {
			past = max(past, e.rev+1)
		}
	}
	return past, nil
}

// keepsWithTheWrite reports whether the Backend keeps an entry in the request that writes the
// revision after it, so that a verified entry shows that revision was written.
func (s *Store) keepsWithTheWrite() bool { return s.keeper != nil || s.keepWriter != nil }

// checkWrittenPast refuses a change built on cur, the file of a plan with no mark, when its
// history shows a later revision was written (writtenPast).
func (s *Store) checkWrittenPast(ctx context.Context, name string, cur *document.Plan, raw string) error {
	past, err := s.writtenPast(ctx, name, cur, raw)
	if err != nil || past == 0 {
		return err
	}
	if err := s.stillStored(ctx, name, raw); err != nil {
		return err
	}
	return rolledBack(cur, planMark{valid: true, rev: past})
}

// deletedPast is, for a delete of f, the newest revision the plan's history shows was
// written after f's file, when the plan has no mark; 0 otherwise.
func (s *Store) deletedPast(ctx context.Context, name string, f deleteTarget) (int64, error) {
	if f.plan == nil {
		return 0, nil
	}
	if m, err := s.readMark(ctx, name); err != nil || m.exists {
		return 0, err
	}
	past, err := s.writtenPast(ctx, name, f.plan, f.raw)
	if err == nil && past > 0 {
		err = s.stillStored(ctx, name, f.raw)
	}
	return past, err
}
