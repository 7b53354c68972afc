package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

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

// oldestShown is the oldest revision History and GetRevision show while the plan is at cur.
func (s *Store) oldestShown(cur int64) int64 {
	return max(1, cur-int64(s.historyLimit)+1)
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

// History is plan.Store.History, whose doc comment is the contract.
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

// GetRevision is plan.Store.GetRevision, whose doc comment is the contract.
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

// expiredStepOf is the step number of a hold_expired header value "3 w1"; 0 for none.
func expiredStepOf(v string) int {
	num, _, _ := strings.Cut(v, " ")
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// Diff is plan.Store.Diff, whose doc comment is the contract.
func (s *Store) Diff(ctx context.Context, name string, from, to int64) (string, error) {
	cur, _, err := s.loadExisting(ctx, name)
	if err != nil {
		return "", err
	}
	a, err := s.revisionAt(ctx, cur, from)
	if err != nil {
		return "", err
	}
	b, err := s.revisionAt(ctx, cur, to)
	if err != nil {
		return "", err
	}
	label := func(p *document.Plan) string { return name + "@" + strconv.FormatInt(p.Revision, 10) }
	return document.DiffPlans(a, b, label(a), label(b), 3), nil
}

// ChangesSince returns the current plan and, when revision since is kept, that revision
// (nil otherwise), for a reader who already has since. When since is kept but cannot be
// verified (history.go), unverified says why, so the reader is told instead of left to
// take the whole plan for a diff it did not get.
func (s *Store) ChangesSince(ctx context.Context, name string, since int64) (cur, old *document.Plan, unverified *document.Error, err error) {
	cur, _, err = s.loadExisting(ctx, name)
	if err != nil {
		return nil, nil, nil, err
	}
	old, err = s.revisionAt(ctx, cur, since)
	if document.CodeOf(err) == document.CodeNotFound {
		var e *document.Error
		if errors.As(err, &e) && (e.Reason == document.ReasonRevisionMismatch || e.Reason == document.ReasonRevisionUnverifiable) {
			unverified = e
		}
		return cur, nil, unverified, nil
	}
	return cur, old, nil, err
}
