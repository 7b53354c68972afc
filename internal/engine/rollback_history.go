package engine

import (
	"context"

	"github.com/einoplan/plan/internal/document"
)

// A plan nobody governs has no mark (rollback_mark.go), so its writes cost no write more;
// its history stands in for the mark. An entry of revision r exists only once a write
// replaced revision r (or was about to), so a plan file at a revision older than an entry's
// was put back by hand: it is reported (rolled_back) when read, as a governed plan's is,
// and the write that would build on it is refused, since it would write a revision number a
// second time; a delete of it records the newest revision the history shows, so the plan
// written again starts past it.
//
// What is caught on which Backend, of a file put back byte for byte by one revision (a file
// put back further, or edited, is caught everywhere):
//   - where the Backend keeps the entry in the very request that writes the next revision
//     (driver.KeepingSwapper, driver.KeepingWriter: Memory, Redis, PostgreSQL, a
//     LocalBackend), an entry of the file's own revision that holds the file's bytes shows
//     the next one was written: caught;
//   - where the entry is written just before (keepBefore) and writers are kept apart by the
//     Store's locks (no driver.Swapper: eino-ext's local backend, a plain Backend), such an
//     entry is caught too, reported as put back or interrupted
//     (document.ReasonPutBackOrInterrupted): a crash between keeping the entry and writing
//     leaves the same trace, and a person's delete recovers either. A write of this process
//     that fails after keeping its entry, with the file still as it was, removes the entry
//     again (unkeep), so only a crash leaves one. Where the Backend has no driver.Locker
//     (eino-ext's), a read in one process while another process's write is between the
//     two can report it for that moment;
//   - on a driver.Swapper that keeps just before, a write of another process can be between
//     its entry and its swap at any time, and a lost swap leaves entries of either bytes:
//     there only a mark catches it.
//
// The check reads the history's folder only where this process does not know it through the
// file's revision (the entries it keeps for pruning, history_write.go, which a listing made
// for a read fills too): a read or write at the revision this process wrote or read last
// costs no round trip, and a file older than it is rolled back without one. A write built on
// the file this Store wrote last (a driver.Swapper's guess) is never checked: its swap
// succeeds only on those bytes, so a change stays one statement on PostgreSQL. A read that
// finds a later revision reads the file again (a write may have landed meanwhile), and one
// that finds only an entry of the file's own revision does so under the plan's lock (a write
// of this process may be between its entry and its file). What this process knows is listed
// again every few prunes; until then a file put back after another process wrote the plan is
// caught by that process, or by this one's next listing. With history off (HistoryLimit 1)
// nothing is kept to compare with.

// readsAgain bounds the reads of a plan file that changed while its history was checked.
const readsAgain = 2

// pastWrite is what a plan's history shows of revisions written after a file: past, the
// newest revision written (0: none shown); ownEntry, that the only sign is an entry of the
// file's own revision holding its bytes on a keep-before Backend.
type pastWrite struct {
	past     int64
	ownEntry bool
}

// writtenPast is what the history of plan name shows was written after cur, whose file is
// raw.
func (s *Store) writtenPast(ctx context.Context, name string, cur *document.Plan, raw string) (w pastWrite, err error) {
	if !s.keepsEntries() {
		return pastWrite{}, nil
	}
	if through, known := s.knownThrough(name); known && cur.Revision < through {
		return pastWrite{past: through}, nil // this process wrote or read a later revision
	}
	if _, known := s.knownEntriesAt(name, cur.Revision); known {
		return pastWrite{}, nil // this process wrote cur's revision last, and no entry of it or later since
	}
	entries, err := s.listHistory(ctx, name)
	if err != nil {
		return pastWrite{}, err
	}
	defer func() {
		if w.past == 0 && err == nil {
			s.keepEntries(name, cur.Revision, entries, true) // so the next reads and writes need no listing
		}
	}()
	sum := ""
	for _, e := range entries { // newest first
		if e.rev < cur.Revision || e.legacy {
			break
		}
		if e.rev > cur.Revision {
			w.past, w.ownEntry = max(w.past, e.rev+1), false
			continue
		}
		if w.past > 0 {
			continue
		}
		if !s.keepsWithTheWrite() && s.swapper != nil {
			continue // a write that lost its swap, or one still in flight elsewhere
		}
		if sum == "" {
			sum = entrySum(raw)
		}
		if _, fault, err := s.readKept(ctx, name, e); err != nil {
			return pastWrite{}, err
		} else if fault == 0 {
			w.past, w.ownEntry = e.rev+1, e.sum == sum && !s.keepsWithTheWrite()
		}
	}
	return w, nil
}

// keepsWithTheWrite reports whether the Backend keeps an entry in the request that writes the
// revision after it, so that a verified entry shows that revision was written.
func (s *Store) keepsWithTheWrite() bool { return s.keeper != nil || s.keepWriter != nil }

// knownThrough is the revision this process last wrote or read plan name at, as its
// known entries record it.
func (s *Store) knownThrough(name string) (int64, bool) {
	s.shared.knownMu.Lock()
	defer s.shared.knownMu.Unlock()
	if k := s.shared.known[name]; k != nil {
		return k.through, true
	}
	return 0, false
}

// rolledBackPast is the refusal of cur, a plan file its history shows w was written past.
func rolledBackPast(cur *document.Plan, w pastWrite) error {
	reason := document.ReasonRolledBack
	if w.ownEntry {
		reason = document.ReasonPutBackOrInterrupted
	}
	return document.Fail(document.Error{Code: document.CodeRolledBack, Reason: reason, Name: cur.Name, Revision: cur.Revision, CurrentRevision: w.past})
}

// checkWrittenPast refuses a change built on cur, the file of a plan with no mark, when its
// history shows a later revision was written (writtenPast).
func (s *Store) checkWrittenPast(ctx context.Context, name string, cur *document.Plan, raw string) error {
	w, err := s.writtenPast(ctx, name, cur, raw)
	if err != nil || w.past == 0 {
		return err
	}
	if err := s.stillStored(ctx, name, raw); err != nil {
		return err
	}
	return rolledBackPast(cur, w)
}

// checkReadPast is checkWrittenPast for a read of plan file p, holding cur, made without the
// plan's lock: what it finds counts only once the file is read again and is still raw (a
// write may have landed since), under the plan's lock when the only sign is an entry of the
// file's own revision (a write of this process may be between its entry and its file).
// again reports a file that changed meanwhile: the caller reads it anew.
func (s *Store) checkReadPast(ctx context.Context, name, p string, cur *document.Plan, raw string) (again bool, err error) {
	w, err := s.writtenPast(ctx, name, cur, raw)
	if err != nil || w.past == 0 {
		return false, err
	}
	if w.ownEntry {
		unlock, err := s.lock(ctx, name)
		if err != nil {
			return false, err
		}
		defer unlock()
	}
	if now, _, err := s.readRaw(ctx, p); err != nil || now != raw {
		return err == nil, err
	}
	return false, rolledBackPast(cur, w)
}

// unkeep removes keep, the entry a write kept just before writing file p over raw, when that
// write failed and p still holds raw: the revision was not replaced, and an entry of it
// holding the file's bytes would read as a file put back (writtenPast). Another process
// could have kept the same entry and not yet written its file only where nothing keeps the
// writers of two processes apart (no driver.Locker, no driver.Swapper), where concurrent
// writes from two processes are not safe anyway (store.go).
func (s *Store) unkeep(ctx context.Context, p, raw, keep string) {
	if now, exists, err := s.readRaw(context.WithoutCancel(ctx), p); err == nil && exists && now == raw {
		_ = s.remove(context.WithoutCancel(ctx), keep, "", true)
	}
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
	w, err := s.writtenPast(ctx, name, f.plan, f.raw)
	if err == nil && w.past > 0 {
		err = s.stillStored(ctx, name, f.raw)
	}
	return w.past, err
}
