package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

// historyDir is the folder of a plan's kept revisions.
// Names never need cleaning (planPath), so no path.Join.
func (s *Store) historyDir(name string) string {
	if s.Dir == "/" {
		return "/.history/" + name
	}
	return s.Dir + "/.history/" + name
}

// entryPath is where revision rev of a plan is kept, its file's entrySum being sum.
func (s *Store) entryPath(name string, rev int64, sum string) string {
	dir := s.historyDir(name)
	out := make([]byte, 0, len(dir)+1+20+1+len(sum))
	out = append(out, dir...)
	out = append(out, '/')
	out = strconv.AppendInt(out, rev, 10)
	out = append(out, '.')
	out = append(out, sum...)
	return unsafe.String(unsafe.SliceData(out), len(out)) // out is not used again
}

// commitKeeping writes file at p as the plan's next revision over cur (nil: a create), whose
// file is raw, and keeps raw as the history entry of cur's revision when sum, raw's
// entrySum, is given: in the same request where the Backend can (driver.KeepingSwapper,
// driver.KeepingWriter), else just before. The Store then knows the entry (noteEntry) and
// prunes when due; when the write fails it forgets what it knew of the plan's history
// (forgetEntries). rev is file's revision.
func (s *Store) commitKeeping(ctx context.Context, name, p string, cur *document.Plan, raw, sum, file string, rev int64) error {
	keep := ""
	var err error
	switch {
	case cur == nil:
		err = s.commit(ctx, p, nil, file, "")
	case sum == "":
		err = s.commit(ctx, p, &raw, file, "")
	case s.keeper == nil && s.keepWriter == nil:
		// An entry kept by a write that then fails or loses a race is still what revision
		// cur was, so it stays (history.go).
		keep = s.entryPath(name, cur.Revision, sum)
		if err = s.keepBefore(ctx, name, keep, raw); err == nil {
			if err = s.commit(ctx, p, &raw, file, ""); err != nil && s.swapper == nil {
				s.unkeep(ctx, p, raw, keep) // rollback_history.go
			}
		}
	default:
		keep = s.entryPath(name, cur.Revision, sum)
		err = s.commit(ctx, p, &raw, file, keep)
		if err != nil && s.keepWriter != nil && ctx.Err() == nil && s.setAsideStrays(ctx, name) {
			err = s.commit(ctx, p, &raw, file, keep) // under the Locker: nothing moved meanwhile
		}
	}
	if err != nil {
		s.forgetEntries(name)
		return err
	}
	if keep != "" {
		s.noteEntry(name, rev, listedEntry{rev: cur.Revision, sum: sum, path: keep, size: int64(len(raw))})
	}
	// With a limit of one revision nothing is kept, but entries kept under a larger limit
	// still go.
	if s.historyOn() && s.pruneDue(rev, len(file)) {
		s.prune(ctx, name, rev, len(file))
	}
	return nil
}

// historyOn reports whether the Store keeps history.
func (s *Store) historyOn() bool { return s.historyLimit > 0 }

// keepsEntries reports whether a change keeps the file it replaces: with a limit of one
// revision, history is the plan file alone.
func (s *Store) keepsEntries() bool { return s.historyLimit > 1 }

// keepBefore writes raw, the file a change is about to replace, at the entry path p before
// the change is committed; the change fails when it cannot be written.
func (s *Store) keepBefore(ctx context.Context, name, p, raw string) error {
	err := s.writeEntry(ctx, p, raw)
	if err != nil && ctx.Err() == nil && s.setAsideStrays(ctx, name) {
		err = s.writeEntry(ctx, p, raw)
	}
	return err
}

func (s *Store) writeEntry(ctx context.Context, p, content string) error {
	if ctx.Err() != nil {
		return Canceled(ctx)
	}
	req := &driver.WriteRequest{FilePath: p, Content: content}
	var err error
	if s.once != nil {
		err = s.once.WriteOnce(ctx, req)
	} else {
		err = s.Backend.Write(ctx, req)
	}
	if err != nil {
		return BackendError("write "+p, err)
	}
	return nil
}

// listHistory returns the entry files of a plan's history, newest first.
func (s *Store) listHistory(ctx context.Context, name string) ([]listedEntry, error) {
	dir := s.historyDir(name)
	infos, err := s.Backend.LsInfo(ctx, &driver.LsInfoRequest{Path: dir})
	if err != nil && !IsNotExist(err) && !strayTombstoneFolder(err) {
		if ctx.Err() != nil {
			return nil, Canceled(ctx)
		}
		return nil, BackendError("list "+dir, err)
	}
	out := make([]listedEntry, 0, len(infos))
	for _, info := range infos {
		base := path.Base(info.Path)
		num, sum, ok := strings.Cut(base, ".")
		legacy := !ok
		if legacy {
			num, sum, ok = strings.Cut(base, "-")
		}
		rev, err := strconv.ParseInt(num, 10, 64)
		if info.IsDir || !ok || err != nil || rev <= 0 || strconv.FormatInt(rev, 10) != num ||
			(legacy && len(sum) != document.LegacyEntryDigits) || (!legacy && len(sum) != document.EntrySumDigits && len(sum) != document.CrcEntryDigits) {
			continue
		}
		out = append(out, listedEntry{rev: rev, sum: sum, legacy: legacy, path: dir + "/" + base, size: info.Size})
	}
	slices.SortFunc(out, func(a, b listedEntry) int {
		if a.rev != b.rev {
			return int(sign(b.rev - a.rev))
		}
		return strings.Compare(a.sum, b.sum)
	})
	return out, nil
}

func sign(n int64) int64 {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

// pruneEvery is how many revisions pass between two prunes of a plan's history: pruning
// deletes the oldest entries (and at times lists them), so it is done in batches of at
// least 8 and at most half the kept revisions, which keeps its cost per write small at any
// HistoryLimit.
// History and GetRevision never show more than historyLimit.
func (s *Store) pruneEvery() int64 { return int64(max(8, s.historyLimit/2)) }

// pruneDue reports whether the write of revision rev, whose plan file is size bytes, prunes:
// every pruneEvery revisions, and at every write of a plan so large that pruneEvery-1 more
// entries could pass historyMaxBytes.
func (s *Store) pruneDue(rev int64, size int) bool {
	every := s.pruneEvery()
	return rev%every == 0 || int64(size)*(int64(s.historyLimit)+every) > s.historyMaxBytes
}

// prune runs after revision rev, whose plan file is size bytes, was committed. Of the older
// revisions it keeps the newest that fit, with the plan file, in historyLimit revisions and
// historyMaxBytes; entries
// of earlier releases go. Entries of rev and later belong to writes in flight and are left
// alone. It goes by the entries the Store knows when it can (noteEntry), else lists
// them. Failures are ignored: an entry left over is removed by a later prune, and one past
// the bounds is never shown.
func (s *Store) prune(ctx context.Context, name string, rev int64, size int) {
	entries, known := s.knownEntriesAt(name, rev)
	if !known {
		var err error
		if entries, err = s.listHistory(ctx, name); err != nil {
			s.forgetEntries(name)
			return
		}
	}
	revs, bytes := 1, int64(size) // the plan file is one revision
	last := int64(-1)
	var drop []string
	kept := entries[:0]
	for _, e := range entries {
		keep := e.rev >= rev
		if e.rev < rev && !e.legacy {
			if e.rev != last {
				last = e.rev
				revs++
			}
			// Several entries of one older revision are rare (a write that kept one and
			// then lost a race); they all count against the limits, so the history stays
			// bounded.
			keep = revs <= s.historyLimit && bytes+e.size <= s.historyMaxBytes
		}
		if keep {
			bytes += e.size
			kept = append(kept, e)
			continue
		}
		drop = append(drop, e.path)
	}
	if err := s.deleteLazily(ctx, drop); err != nil || ctx.Err() != nil {
		s.forgetEntries(name) // what was not dropped is found by the next prune's listing
		return
	}
	s.keepEntries(name, rev, kept, !known)
}

// deleteLazily removes history entries past the kept bounds: without a durable removal
// where the Backend offers one (driver.LazyDeleter), since an entry back after a crash is
// never shown and the next prune removes it again. It reports the first failure.
func (s *Store) deleteLazily(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if s.lazy != nil {
		return s.lazy.DeleteLazily(ctx, paths...)
	}
	var first error
	for _, p := range paths {
		if err := s.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: p}); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// dropHistory removes the history of a plan deleted at revision last (0: unknown), with the
// Store's locks still held. Under a driver.Locker no other process can write meanwhile, so the
// folder goes at once (one step on a LocalBackend); otherwise entries go one by one up to
// last, so a plan created meanwhile by another process keeps its entries. Failures are ignored: a plan created later under the name never shows
// entries older than itself, and its writes prune them.
func (s *Store) dropHistory(ctx context.Context, name string, last int64) {
	s.forgetEntries(name)
	if s.locker != nil {
		_ = s.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: s.historyDir(name)})
	}
	entries, err := s.listHistory(ctx, name)
	if err != nil {
		return
	}
	for _, e := range entries {
		if last == 0 || e.rev <= last {
			_ = s.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: e.path})
		}
	}
}

// strayDir is where the Store sets aside what stood where its history folders go.
func (s *Store) strayDir() string { return path.Join(s.Dir, ".stray") }

// setAsideStrays moves whatever stands at <BaseDir>/.history or .history/<name> and is not a
// folder (a file, a link, a pipe) out of the way, so history, and with it every write, goes
// on. A regular file's bytes are kept in <BaseDir>/.stray, which List reports. It reports
// whether anything was moved.
func (s *Store) setAsideStrays(ctx context.Context, name string) bool {
	moved := false
	for _, p := range [...]string{path.Join(s.Dir, ".history"), s.historyDir(name)} {
		if s.setAside(ctx, p) {
			moved = true
		}
	}
	return moved
}

func (s *Store) setAside(ctx context.Context, p string) bool {
	infos, err := s.Backend.LsInfo(ctx, &driver.LsInfoRequest{Path: path.Dir(p)})
	if err != nil {
		return false
	}
	stray := false
	for _, info := range infos {
		if path.Base(info.Path) == path.Base(p) && !info.IsDir {
			stray = true
		}
	}
	if !stray {
		return false
	}
	raw, exists, err := s.readRaw(ctx, p)
	keep := err == nil && exists
	if p == s.strayDir() {
		// A stray where the stray folder goes makes way first, then goes in.
		return s.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: p}) == nil && (!keep || s.keepStray(ctx, p, raw))
	}
	if keep && !s.keepStray(ctx, p, raw) {
		return false
	}
	return s.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: p}) == nil
}

// keepStray writes raw, the bytes of the stray at p, into the stray folder; should a stray
// stand where that folder goes (a file at .stray), it is set aside first.
func (s *Store) keepStray(ctx context.Context, p string, raw string) bool {
	kept := path.Join(s.strayDir(), strings.TrimPrefix(strings.ReplaceAll(strings.TrimPrefix(p, s.Dir), "/", "_"), "_")+"-"+strconv.FormatInt(s.Now().UnixNano(), 10))
	if s.Backend.Write(ctx, &driver.WriteRequest{FilePath: kept, Content: raw}) == nil {
		return true
	}
	return p != s.strayDir() && s.setAside(ctx, s.strayDir()) &&
		s.Backend.Write(ctx, &driver.WriteRequest{FilePath: kept, Content: raw}) == nil
}

// A prune needs the plan's history entries. Listing them costs a folder listing on every
// prune (a round trip on remote storage), so the Store remembers, per plan, the entries a
// listing found and adds each entry its own writes commit, for as long as the plan's
// revisions stay contiguous: a revision this process did not write (another process, an
// outcome left unknown) drops the memory, and the next prune lists again. Every
// knownListEvery-th prune lists anyway, to find what a crashed writer of another process
// left. Pruning from memory never drops more than a listing would: it knows a subset of
// the entries, so it counts fewer revisions and bytes against the bounds.

// knownListEvery is how many prunes in a row may go by the entries the Store knows, where
// another process could have left entries behind (not on a MemoryBackend).
const knownListEvery = 4

// maxKnownPlans bounds the plans whose entries one storage folder's Stores remember.
const maxKnownPlans = 1024

// noteEntry records that this process committed revision rev of name, keeping the entry e
// of the revision before it.
func (s *Store) noteEntry(name string, rev int64, e listedEntry) {
	sh := s.shared
	sh.knownMu.Lock()
	defer sh.knownMu.Unlock()
	k := sh.known[name]
	if k == nil {
		return
	}
	if k.through != rev-1 {
		delete(sh.known, name)
		return
	}
	k.entries = append(k.entries, e)
	k.through = rev
}

// forgetEntries drops what the Store knows of name's history: its next prune lists.
func (s *Store) forgetEntries(name string) {
	s.shared.knownMu.Lock()
	delete(s.shared.known, name)
	s.shared.knownMu.Unlock()
}

// knownEntriesAt returns a copy of name's entries when they are complete at revision rev
// and a listing is not due.
func (s *Store) knownEntriesAt(name string, rev int64) ([]listedEntry, bool) {
	s.shared.knownMu.Lock()
	defer s.shared.knownMu.Unlock()
	k := s.shared.known[name]
	if k == nil || k.through != rev || (k.prunes+1 >= knownListEvery && !s.inProcess) {
		return nil, false
	}
	out := make([]listedEntry, len(k.entries))
	for i, e := range k.entries {
		out[len(out)-1-i] = e
	}
	return out, true
}

// keepEntries records what a prune at revision rev kept; listed tells whether its entries
// came from a listing.
func (s *Store) keepEntries(name string, rev int64, kept []listedEntry, listed bool) {
	sh := s.shared
	sh.knownMu.Lock()
	defer sh.knownMu.Unlock()
	k := sh.known[name]
	if k == nil {
		if len(sh.known) >= maxKnownPlans {
			clear(sh.known)
		}
		k = &knownEntries{}
		sh.known[name] = k
	}
	k.entries = k.entries[:0]
	for i := len(kept) - 1; i >= 0; i-- { // kept is newest first
		if e := kept[i]; e.rev <= rev { // later ones belong to writes in flight elsewhere
			k.entries = append(k.entries, e)
		}
	}
	k.through = rev
	if listed {
		k.prunes = 0
	} else {
		k.prunes++
	}
}

// noteCreated records, after this Store created plan name at revision rev, that no entry of
// it or later exists, so writtenPast needs no listing until a prune lists. (A MemoryBackend's
// writes build on the Store's guess, which needs no check, and its first prune lists.)
func (s *Store) noteCreated(name string, rev int64) {
	if s.keepsEntries() && !s.inProcess {
		s.keepEntries(name, rev, nil, false)
	}
}

// appendEntrySum appends the SHA-256 of raw in entrySumDigits hex digits.
func appendEntrySum(dst []byte, raw string) []byte {
	sum := sha256.Sum256(document.BytesOf(raw)) // read in place: no copy of the file
	return hex.AppendEncode(dst, sum[:])
}

// entrySum is appendEntrySum of raw as a string.
func entrySum(raw string) string {
	var scratch [document.EntrySumDigits]byte
	return string(appendEntrySum(scratch[:0], raw))
}

// listedEntry is one entry file found in a plan's history folder.
type listedEntry struct {
	rev    int64
	sum    string // entrySumDigits hex digits; crcEntryDigits or legacyEntryDigits in an entry of an earlier release
	legacy bool
	path   string
	size   int64
}

// knownEntries is one plan's history entries as far as this process knows them.
type knownEntries struct {
	entries []listedEntry // oldest first, none past through
	through int64         // the plan's revision when entries were last complete
	prunes  int           // prunes that went by entries since the last listing
}
