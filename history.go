package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// Defaults of the kept history.
const (
	DefaultHistoryLimit    = 50
	defaultHistoryMaxBytes = 8 << 20
)

// Revision describes one kept revision of a plan, without its body.
type Revision struct {
	Revision int64 `json:"revision"`
	// Action is the kind of change that made this revision; "" when it is not known (the
	// entry that recorded it was lost to a race or edited by hand).
	Action Action `json:"action,omitempty"`
	// Author is who made the change: the agent whose tool call made it or the actor a host
	// named (WithActor), else for the first revision the plan's author; "" when unknown.
	Author    string    `json:"author,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
}

// History keeps the last revisions of every plan in the Backend, next to the plans, so
// every process and machine on the same storage sees the same history:
//
//	<BaseDir>/.history/<name>/<revision>-<first 12 hex digits of the SHA-256 of the plan file>
//
// An entry is the plan file of that revision exactly as it was written, with three more
// header lines in front: action, by (who) and parent (the SHA-256 of the plan file the
// change was based on, "" for a create). Names starting with "." are never plan names, so
// List never sees the folder, and the plan file stays the only thing people read and diff.
//
// The plan file is the source of truth. An entry is written just BEFORE the plan file, so a
// write that then fails or loses a compare-and-swap race may leave an entry that never
// became the plan; a writer that loses a race deletes its entry, and every write deletes
// the losers of the revision it made. Since an entry's name carries its content's hash,
// two writers of one revision never overwrite each other's entry. Whatever is left over is
// never shown: an entry counts only when it is the current plan file byte for byte, or when
// its hash is the parent named by the counted entry of the next revision (or, where a person
// edited the plan file in place, by an entry of the current revision). A parent is always the
// hash of a plan file that was read, and a revision number is written to a plan file once
// (tombstones keep them from repeating), so parents are truthful even in the entries of
// writes that lost.

// historyDir is the folder of a plan's kept revisions.
// Names never need cleaning (planPath), so no path.Join.
func (s *Store) historyDir(name string) string {
	if s.dir == "/" {
		return "/.history/" + name
	}
	return s.dir + "/.history/" + name
}

// entryName is the file name of the entry of revision rev holding a plan file whose
// fileHash is hash.
func entryName(rev int64, hash string) string {
	return strconv.FormatInt(rev, 10) + "-" + hash[:entryHashDigits]
}

const entryHashDigits = 12

// historyEntry is one decoded entry file.
type historyEntry struct {
	action Action
	by     string
	parent string // hex SHA-256 of the plan file this revision was based on
	file   string // the plan file as written, without the three entry lines
}

func fileHash(raw string) string {
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(raw), len(raw))) // only read
	return hex.EncodeToString(sum[:])
}

// encodeEntry puts the entry lines in front of the header of the plan file raw; parent is a
// fileHash or "".
func encodeEntry(raw string, action Action, by, parent string) string {
	var b strings.Builder
	b.Grow(len(raw) + len(by) + 150)
	b.WriteString(headerFence)
	writeHeaderString(&b, "action", string(action))
	writeHeaderString(&b, "by", by)
	b.WriteString(`parent: "`) // hex, or "": nothing to escape
	b.WriteString(parent)
	b.WriteString("\"\n")
	b.WriteString(raw[len(headerFence):])
	return b.String()
}

// decodeEntry is the inverse of encodeEntry; false for anything encodeEntry did not write.
func decodeEntry(raw string) (historyEntry, bool) {
	rest, ok := strings.CutPrefix(raw, headerFence)
	if !ok {
		return historyEntry{}, false
	}
	var e historyEntry
	var action string
	for _, f := range [...]struct {
		key string
		out *string
	}{{"action", &action}, {"by", &e.by}, {"parent", &e.parent}} {
		line, after, ok := strings.Cut(rest, "\n")
		if !ok {
			return historyEntry{}, false
		}
		value, ok := strings.CutPrefix(line, f.key+": ")
		if !ok || decodeJSONString(value, f.out) != nil {
			return historyEntry{}, false
		}
		rest = after
	}
	e.action = Action(action)
	e.file = headerFence + rest
	return e, true
}

// historyOn reports whether the Store keeps history.
func (s *Store) historyOn() bool { return s.historyLimit > 0 }

// recordBefore writes the entry of revision next (plan file file, whose fileHash is hash),
// made from the plan file cur (raw; nil when created), before that file is committed; the
// write fails when the entry cannot be written. It returns the entry's path.
func (s *Store) recordBefore(ctx context.Context, action Action, cur *Plan, raw string, next *Plan, file, hash string) (p string, size int, err error) {
	p, entry := s.entryOf(ctx, action, cur, raw, next, file, hash)
	err = s.writeEntry(ctx, p, entry)
	if err != nil && ctx.Err() == nil && s.setAsideStrays(ctx, next.Name) {
		err = s.writeEntry(ctx, p, entry)
	}
	return p, len(entry), err
}

// entryOf is the path and content of the entry of revision next, as recordBefore writes it.
func (s *Store) entryOf(ctx context.Context, action Action, cur *Plan, raw string, next *Plan, file, hash string) (p, entry string) {
	p = s.historyDir(next.Name) + "/" + entryName(next.Revision, hash)
	parent := "" // a create builds on nothing
	if cur != nil {
		parent = s.decoded.hashOf(next.Name, raw)
	}
	return p, encodeEntry(file, action, changedBy(ctx, cur, next), parent)
}

func (s *Store) writeEntry(ctx context.Context, p, content string) error {
	if ctx.Err() != nil {
		return canceled(ctx)
	}
	req := &WriteRequest{FilePath: p, Content: content}
	var err error
	if s.once != nil {
		err = s.once.WriteOnce(ctx, req)
	} else {
		err = s.backend.Write(ctx, req)
	}
	if err != nil {
		return backendError("write "+p, err)
	}
	return nil
}

// listedEntry is one entry file found in a plan's history folder.
type listedEntry struct {
	rev  int64
	hash string // the first entryHashDigits hex digits of the plan file's SHA-256
	path string
	size int64
}

// listHistory returns the entry files of a plan's history, newest first.
func (s *Store) listHistory(ctx context.Context, name string) ([]listedEntry, error) {
	dir := s.historyDir(name)
	infos, err := s.backend.LsInfo(ctx, &LsInfoRequest{Path: dir})
	if err != nil && !isNotExist(err) && !strayTombstoneFolder(err) {
		if ctx.Err() != nil {
			return nil, canceled(ctx)
		}
		return nil, backendError("list "+dir, err)
	}
	out := make([]listedEntry, 0, len(infos))
	for _, info := range infos {
		base := path.Base(info.Path)
		num, hash, ok := strings.Cut(base, "-")
		rev, err := strconv.ParseInt(num, 10, 64)
		if info.IsDir || !ok || err != nil || rev <= 0 || strconv.FormatInt(rev, 10) != num || len(hash) != entryHashDigits {
			continue
		}
		out = append(out, listedEntry{rev: rev, hash: hash, path: dir + "/" + base, size: info.Size})
	}
	slices.SortFunc(out, func(a, b listedEntry) int {
		if a.rev != b.rev {
			return int(sign(b.rev - a.rev))
		}
		return strings.Compare(a.hash, b.hash)
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

// oldestShown is the oldest revision History and GetRevision show while the plan is at cur.
func (s *Store) oldestShown(cur int64) int64 {
	return max(1, cur-int64(s.historyLimit)+1)
}

// prune runs after revision rev, with its entry at mine, was committed. It deletes the
// entries other writers left for rev (they lost), and keeps of the older revisions the
// newest that fit in historyLimit revisions and historyMaxBytes (rev itself always stays).
// Entries of later revisions belong to writes in flight and are left alone. It goes by the
// entries the Store knows when it can (history_known.go), else lists them. Failures are
// ignored: an entry left over is removed by a later write and is never shown.
func (s *Store) prune(ctx context.Context, name string, rev int64, mine string) {
	entries, known := s.knownEntriesAt(name, rev)
	if !known {
		var err error
		if entries, err = s.listHistory(ctx, name); err != nil {
			s.forgetEntries(name)
			return
		}
	}
	revs, bytes := 0, int64(0)
	last := int64(-1)
	var drop []string
	kept := entries[:0]
	for _, e := range entries {
		keep := e.rev > rev || e.path == mine
		if e.rev < rev {
			if e.rev != last {
				last = e.rev
				revs++
			}
			// Several entries of one older revision are rare (a crashed writer); they all
			// count against the limits, so the history stays bounded.
			keep = revs < s.historyLimit && bytes+e.size <= s.historyMaxBytes
		}
		if keep {
			bytes += e.size
			kept = append(kept, e)
			continue
		}
		drop = append(drop, e.path)
	}
	s.deleteLazily(ctx, drop)
	s.keepEntries(name, rev, kept, !known)
}

// deleteLazily removes history entries past the kept bounds: without a durable removal
// where the Backend offers one (driver.LazyDeleter), since an entry back after a crash is
// never shown and the next prune removes it again. Failures are ignored likewise.
func (s *Store) deleteLazily(ctx context.Context, paths []string) {
	if len(paths) == 0 {
		return
	}
	if s.lazy != nil {
		_ = s.lazy.DeleteLazily(ctx, paths...)
		return
	}
	for _, p := range paths {
		_ = s.backend.Delete(ctx, &DeleteRequest{FilePath: p})
	}
}

// dropHistory removes the history of a plan deleted at revision last (0: unknown), with the
// Store's locks still held. Under a driver.Locker no other process can write meanwhile, so the
// folder goes at once (one step on a LocalBackend); otherwise entries go one by one up to
// last, so a plan created meanwhile by another process keeps its entries. Failures are ignored: a plan created later under the name never shows
// entries older than itself, and its writes prune them.
func (s *Store) dropHistory(ctx context.Context, name string, last int64) {
	if s.locker != nil {
		_ = s.backend.Delete(ctx, &DeleteRequest{FilePath: s.historyDir(name)})
	}
	entries, err := s.listHistory(ctx, name)
	if err != nil {
		return
	}
	for _, e := range entries {
		if last == 0 || e.rev <= last {
			_ = s.backend.Delete(ctx, &DeleteRequest{FilePath: e.path})
		}
	}
}

// readEntry reads and decodes one entry; ok is false when it is gone or does not decode.
func (s *Store) readEntry(ctx context.Context, p string) (historyEntry, bool, error) {
	raw, exists, err := s.readRaw(ctx, p)
	if c := CodeOf(err); c == CodeCorrupt || c == CodeTooLarge {
		return historyEntry{}, false, nil
	}
	if err != nil || !exists {
		return historyEntry{}, false, err
	}
	e, ok := decodeEntry(raw)
	return e, ok, nil
}

// keptRevision is the verified entry of one revision.
type keptRevision struct {
	rev   int64
	entry historyEntry
}

// verifiedHistory reads a plan's entries from the newest at or below cur down to oldest,
// and returns the verified entry of each revision that has one, newest first. The entry of
// cur is verified by the plan file curRaw; any older one by the parent named in the verified
// entry of the next revision, so the chain stops where an entry is missing. Only where the
// plan file was edited in place (no entry of its revision is it) do the entries of that
// revision name the parent.
func (s *Store) verifiedHistory(ctx context.Context, cur *Plan, curRaw string, oldest int64) ([]keptRevision, error) {
	entries, err := s.listHistory(ctx, cur.Name)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{fileHash(curRaw): true} // hashes the revision being read may have
	wantRev := cur.Revision
	var next map[string]bool // the parent named by the verified entry of the revision being read
	// handEdited collects the parents of every entry of the current revision, for when none
	// of them is the plan file: a person edited it in place, and the Store's own entry of
	// that revision still says what came before.
	var handEdited map[string]bool
	var out []keptRevision
	found := false
	for _, e := range entries {
		if e.rev > cur.Revision || e.rev < oldest {
			continue
		}
		if e.rev != wantRev {
			// A revision was passed (or has no entry): its parent becomes the wanted hash.
			if !found && wantRev == cur.Revision {
				next = handEdited
			}
			if e.rev != wantRev-1 || next == nil {
				want = map[string]bool{}
			} else {
				want = next
			}
			wantRev, next, found = e.rev, nil, false
		}
		entry, ok, err := s.readEntry(ctx, e.path)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if e.rev == cur.Revision && entry.parent != "" {
			if handEdited == nil {
				handEdited = map[string]bool{}
			}
			handEdited[entry.parent] = true
		}
		if !found && want[fileHash(entry.file)] {
			// Only a verified entry vouches for its parent: the chain runs from the plan
			// file down, and an entry nothing verified (junk, a stray) names no parent.
			found = true
			out = append(out, keptRevision{rev: e.rev, entry: entry})
			next = nil
			if entry.parent != "" {
				next = map[string]bool{entry.parent: true}
			}
		}
	}
	return out, nil
}

func revisionOf(p *Plan, e historyEntry, ok bool) Revision {
	r := Revision{Revision: p.Revision, UpdatedAt: p.UpdatedAt, Title: p.Title, Status: p.Status, Author: p.Author}
	if ok {
		r.Action, r.Author = e.action, e.by
	}
	return r
}

// History returns the kept revisions of a plan, newest first; the current revision is
// always the first. Entries that cannot be shown to be what that revision was are left out.
func (s *Store) History(ctx context.Context, name string) ([]Revision, error) {
	cur, curRaw, err := s.loadExisting(ctx, name)
	if err != nil {
		return nil, err
	}
	kept, err := s.verifiedHistory(ctx, cur, curRaw, s.oldestShown(cur.Revision))
	if err != nil {
		return nil, err
	}
	out := make([]Revision, 0, len(kept)+1)
	if len(kept) == 0 || kept[0].rev != cur.Revision {
		out = append(out, revisionOf(cur, historyEntry{}, false))
	}
	for _, k := range kept {
		p, err := DecodePlan(name, k.entry.file)
		if err != nil || p.Revision != k.rev {
			continue
		}
		out = append(out, revisionOf(p, k.entry, true))
	}
	return out, nil
}

// GetRevision returns revision rev of a plan while it is kept: the current plan, or a
// verified entry of its history; not_found otherwise (never kept, pruned, or unverifiable).
func (s *Store) GetRevision(ctx context.Context, name string, rev int64) (*Plan, error) {
	cur, curRaw, err := s.loadExisting(ctx, name)
	if err != nil {
		return nil, err
	}
	return s.revisionAt(ctx, cur, curRaw, rev)
}

func (s *Store) revisionAt(ctx context.Context, cur *Plan, curRaw string, rev int64) (*Plan, error) {
	if rev == cur.Revision {
		return cur, nil
	}
	missing := fail(Error{Code: CodeNotFound, Reason: reasonNoRevision, Name: cur.Name, Revision: rev, CurrentRevision: cur.Revision})
	if rev < s.oldestShown(cur.Revision) || rev > cur.Revision || !s.historyOn() {
		return nil, missing
	}
	kept, err := s.verifiedHistory(ctx, cur, curRaw, rev)
	if err != nil {
		return nil, err
	}
	if len(kept) == 0 || kept[len(kept)-1].rev != rev {
		return nil, missing
	}
	p, err := DecodePlan(cur.Name, kept[len(kept)-1].entry.file)
	if err != nil || p.Revision != rev {
		return nil, missing
	}
	s.checkApprovalSeal(ctx, p)
	return p, nil
}

// loadExisting is load for a plan that must exist.
func (s *Store) loadExisting(ctx context.Context, name string) (*Plan, string, error) {
	if err := ValidateName(name); err != nil {
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
