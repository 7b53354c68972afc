package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
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
	Action document.Action `json:"action,omitempty"`
	// Author is who made the change: the agent whose tool call made it or the actor a host
	// named (WithActor), else for the first revision the plan's author; "" when unknown.
	Author    string    `json:"author,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
	// OlderUnverified is set on the oldest revision History returns when the revision before
	// it is kept but cannot be verified: its entry does not match the SHA-256 this revision
	// names (forged, swapped or cut short), or the release before kept it under a CRC-32C.
	// That revision and older ones are not served (GetRevision, Diff, read_plan).
	OlderUnverified bool `json:"older_unverified,omitempty"`
	// ByAgent reports that an agent's tool call made this change; false means a host made
	// it through the Store (a person through planctl or the board, or code), or, with no
	// Action, that nobody knows.
	ByAgent bool `json:"by_agent,omitempty"`
	// Expired names the agent whose hold on step ExpiredStep had expired (its lease,
	// StoreConfig.ClaimTTL, ran out) when this change moved that step; "" otherwise.
	Expired     string `json:"expired,omitempty"`
	ExpiredStep int    `json:"expired_step,omitempty"`
	// Rejection is the rejection this change recorded (ActionReject): the revision turned
	// down, by whom and the feedback.
	Rejection *document.Rejection `json:"rejection,omitempty"`
	// Approved is the revision an approval (ActionApprove) approved; 0 otherwise.
	Approved int64 `json:"approved,omitempty"`
}

// History keeps the last revisions of every plan in the Backend, next to the plans, so
// every process and machine on the same storage sees the same history:
//
//	<BaseDir>/.history/<name>/<revision>.<SHA-256 of the file, 64 hex digits>
//
// An entry is the plan file of that revision exactly as it was stored, kept when the next
// revision replaces it; the current revision is the plan file itself. Each plan file records
// the change that made it and the checksum of the file it replaced (change.go), so an entry
// needs no lines of its own, and a change copies and hashes nothing but a checksum of the
// file it replaces. Where the Backend keeps the replaced file in the same request
// (driver.KeepingSwapper, driver.KeepingWriter) a change is one write; elsewhere the entry
// is written just before the plan file, from the file the change was based on. Names
// starting with "." are never plan names, so List never sees the folder, and the plan file
// stays the only thing people read and diff.
//
// History runs from the plan file down the chain of the files each revision replaced: an
// entry counts only when it is the one the next revision names, its bytes still match that
// SHA-256 and it decodes to its revision. Each entry names its own predecessor's SHA-256 in
// turn, so the chain is a hash chain anchored in the plan file: an entry forged or swapped
// in (or cut short by a crash, since entries are written without a sync) is refused, never
// served (revisionAt reports it as revision_mismatch), and so is everything older. So an
// entry is what that revision was, even when the write that kept it then lost a race, and a
// plan whose revisions started over (its file removed by hand) never shows another's. The
// chain ends at the first revision whose entry is missing and at a create.
//
// The release before named entries by a CRC-32C (<revision>.<8 hex digits>), which anyone
// can forge, so those entries are not served: GetRevision, Diff and read_plan's
// since_revision report them as revision_unverifiable, and History stops above them with
// Revision.OlderUnverified set. Prunes keep them like any entry, for a conversion to
// read. Entries of releases before that (<revision>-<12 hex digits>, with lines of their own
// in front) are never shown, and prunes remove them.

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

// AppendEntrySum appends the SHA-256 of raw in entrySumDigits hex digits.
func AppendEntrySum(dst []byte, raw string) []byte {
	sum := sha256.Sum256(document.BytesOf(raw)) // read in place: no copy of the file
	return hex.AppendEncode(dst, sum[:])
}

// entrySum is appendEntrySum of raw as a string.
func entrySum(raw string) string {
	var scratch [document.EntrySumDigits]byte
	return string(AppendEntrySum(scratch[:0], raw))
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

// listedEntry is one entry file found in a plan's history folder.
type listedEntry struct {
	rev    int64
	sum    string // entrySumDigits hex digits; crcEntryDigits or legacyEntryDigits in an entry of an earlier release
	legacy bool
	path   string
	size   int64
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

// oldestShown is the oldest revision History and GetRevision show while the plan is at cur.
func (s *Store) oldestShown(cur int64) int64 {
	return max(1, cur-int64(s.historyLimit)+1)
}

// prune runs after revision rev, whose plan file is size bytes, was committed. Of the older
// revisions it keeps the newest that fit, with the plan file, in historyLimit revisions and
// historyMaxBytes; entries
// of earlier releases go. Entries of rev and later belong to writes in flight and are left
// alone. It goes by the entries the Store knows when it can (history_known.go), else lists
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

// How an entry the chain names failed to be what its name says.
type entryFault int

const (
	entryGone         entryFault = iota // missing, or a stray stands on its path
	entryMismatch                       // its bytes do not match the SHA-256 that names it, or it is not its revision
	entryUnverifiable                   // named by the CRC-32C of the release before, which proves nothing
)

// readKept reads and verifies the entry e; nil and why when it is gone, does not match the
// SHA-256 that names it (forged, swapped or cut short), is not the revision its name gives,
// or is named by a CRC-32C.
func (s *Store) readKept(ctx context.Context, name string, e listedEntry) (*document.Plan, entryFault, error) {
	raw, exists, err := s.readRaw(ctx, e.path)
	if c := document.CodeOf(err); c == document.CodeCorrupt || c == document.CodeTooLarge || strayTombstoneFolder(err) || errors.Is(err, driver.ErrNotRegularFile) {
		return nil, entryGone, nil // a stray where the entry goes (a file at .history, a folder at its path) keeps nothing
	}
	if err != nil || !exists {
		return nil, entryGone, err
	}
	if len(e.sum) == document.CrcEntryDigits {
		return nil, entryUnverifiable, nil // whatever its bytes: a CRC proves nothing
	}
	if len(e.sum) != document.EntrySumDigits || entrySum(raw) != e.sum {
		return nil, entryMismatch, nil
	}
	p, err := document.DecodeSealed(name, raw)
	if err != nil || p.Revision != e.rev {
		return nil, entryMismatch, nil
	}
	return p, 0, nil
}

// keptRevision is one revision History can show: the plan file, or a verified entry.
type keptRevision struct {
	rev  int64
	plan *document.Plan
}

// keptChain is what keptHistory found: the revisions it verified, newest first, and, when
// the chain ends at an entry it refused, which revision and why.
type keptChain struct {
	revs      []keptRevision
	refused   int64 // the revision whose entry was refused; 0 when none was
	refusedAs entryFault
}

// keptHistory returns cur and the verified entries of the revisions before it, newest
// first, down to oldest. Each revision names the file it replaced (replaces) by its SHA-256,
// so the entry of the one before is found by its name, without listing, and only that one
// counts: the chain runs without a gap from cur, and ends at the first revision whose entry
// is missing or refused, or that replaced nothing (a create). So a plan created again under
// a name, with its revisions starting over, never shows the revisions of another.
func (s *Store) keptHistory(ctx context.Context, cur *document.Plan, oldest int64) ([]keptRevision, error) {
	chain, err := s.keptChainOf(ctx, cur, oldest)
	return chain.revs, err
}

// keptChainOf is keptHistory, saying where and why the chain ends at a refused entry.
func (s *Store) keptChainOf(ctx context.Context, cur *document.Plan, oldest int64) (keptChain, error) {
	out := keptChain{revs: []keptRevision{{rev: cur.Revision, plan: cur}}}
	if !s.keepsEntries() {
		return out, nil
	}
	for p := cur; p.Replaces != "" && p.Revision-1 >= oldest; {
		e := listedEntry{rev: p.Revision - 1, sum: p.Replaces}
		e.path = s.entryPath(cur.Name, e.rev, e.sum)
		kept, fault, err := s.readKept(ctx, cur.Name, e)
		if err != nil {
			return out, err
		}
		if kept == nil {
			if fault != entryGone {
				out.refused, out.refusedAs = e.rev, fault
			}
			return out, nil
		}
		out.revs = append(out.revs, keptRevision{rev: e.rev, plan: kept})
		p = kept
	}
	return out, nil
}

// revisionOf describes p as History shows it. A file that does not record its change
// (written by an earlier release, or by a person) names the plan's author.
func revisionOf(p *document.Plan) Revision {
	r := Revision{Revision: p.Revision, UpdatedAt: p.UpdatedAt, Title: p.Title, Status: p.Status, Author: p.Author}
	if p.Action != "" {
		r.Action, r.Author = p.Action, p.ChangedBy
		r.ByAgent = p.ByAgent
	}
	r.Expired, r.ExpiredStep = document.ExpiredHolder(p.ExpiredHold), expiredStepOf(p.ExpiredHold)
	if p.Action == document.ActionReject {
		r.Rejection = p.Rejection
	}
	if p.Action == document.ActionApprove && p.Approval != nil {
		r.Approved = p.Approval.Revision
	}
	return r
}

// History returns the kept revisions of a plan, newest first; the current revision is
// always the first. Entries that cannot be shown to be what that revision was are left out,
// and so is everything older; when the entry the oldest revision shown names is refused, its
// OlderUnverified says so.
func (s *Store) History(ctx context.Context, name string) ([]Revision, error) {
	cur, _, err := s.loadExisting(ctx, name)
	if err != nil {
		return nil, err
	}
	kept, err := s.keptChainOf(ctx, cur, s.oldestShown(cur.Revision))
	if err != nil {
		return nil, err
	}
	out := make([]Revision, len(kept.revs))
	for i, k := range kept.revs {
		out[i] = revisionOf(k.plan)
	}
	out[len(out)-1].OlderUnverified = kept.refused != 0
	return out, nil
}

// GetRevision returns revision rev of a plan while it is kept: the current plan, or an
// entry of its history verified by the SHA-256 chain from the plan file; not_found otherwise:
// reason no_revision when never kept or pruned, revision_mismatch when the entry kept for it
// (or for a revision between) does not match its SHA-256 (forged, swapped or cut short),
// revision_unverifiable when the release before kept it under a CRC-32C.
func (s *Store) GetRevision(ctx context.Context, name string, rev int64) (*document.Plan, error) {
	cur, _, err := s.loadExisting(ctx, name)
	if err != nil {
		return nil, err
	}
	return s.revisionAt(ctx, cur, rev)
}

func (s *Store) revisionAt(ctx context.Context, cur *document.Plan, rev int64) (*document.Plan, error) {
	if rev == cur.Revision {
		return cur, nil
	}
	missing := func(reason string) error {
		return document.Fail(document.Error{Code: document.CodeNotFound, Reason: reason, Name: cur.Name, Revision: rev, CurrentRevision: cur.Revision})
	}
	if rev < s.oldestShown(cur.Revision) || rev > cur.Revision || !s.historyOn() {
		return nil, missing(document.ReasonNoRevision)
	}
	kept, err := s.keptChainOf(ctx, cur, rev)
	if err != nil {
		return nil, err
	}
	if k := kept.revs[len(kept.revs)-1]; k.rev == rev {
		s.checkApprovalSeal(ctx, k.plan)
		return k.plan, nil
	}
	switch kept.refusedAs {
	case entryMismatch:
		return nil, missing(document.ReasonRevisionMismatch)
	case entryUnverifiable:
		return nil, missing(document.ReasonRevisionUnverifiable)
	}
	return nil, missing(document.ReasonNoRevision)
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
