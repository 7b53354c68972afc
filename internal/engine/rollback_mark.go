package engine

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

// A plan's mark is what the Store knows of a plan a person governs, kept where the plan
// files are not, and sealed with the approval key:
//
//	<parent>/.<folder>.approval-marks/<name>   beside the key (MarksPath)
//
//	---
//	revision: 7                the newest revision the Store wrote of the plan
//	deleted: true              the plan was deleted at that revision
//	requires_approval: true    the plan is under the approval requirement
//	budget: "200k tokens"      the plan budget a person set last
//	comment: "c1 on step 2, …"  the people's comments still open, as the plan file keeps them
//	comment_text: "…"
//	seal: "<hex>"              HMAC-SHA256 of the above under the key
//	---
//
// A plan is governed once a person decided on it or set something for it: it carries an
// approval, a rejection, a waiting run, the approval requirement or a plan budget (or its
// file a header seal, document.Sealed). Every write of a governed plan raises its mark,
// and so does its delete: a plan file older than the mark, or not newer than its deletion,
// was put back by hand (a copy of a kept revision, a `git checkout`), so the Store reports
// it (rolled_back) instead of serving it, and never honours what it carries. A governed plan
// whose file carries no header seal that holds has its budget from the mark, its
// requirement and its open comments too, so editing them by hand bounds or frees nothing,
// and a comment deleted by hand still blocks a request for approval until an agent answers
// it or a person resolves it. The mark keeps open comments only, so it stays as bounded as
// a plan's comments (document.CommentsOfHeader).
//
// The mark is written after the plan file, never lowered, so a crash between the two leaves
// it behind the file, never ahead: a plan the Store wrote never reads as rolled back, and
// the next write raises the mark. Until then that one revision could be put back. Plans
// nobody governs cost one read of the (absent) mark per read of the plan, and no write.
// Whoever can write the mark's folder can delete a mark, which leaves the plan as one
// nobody governed: keep it as private as the key (a LocalBackend writes both as the
// process's user, beside the plans folder, out of the file tools' reach).

// marksFolder is the suffix of the marks' folder beside the plans folder.
const marksFolder = ".approval-marks"

// MarksPath is the folder of the plans folder dir's marks: beside it, next to the key.
func MarksPath(dir string) string {
	return besideFolder(dir, marksFolder)
}

// Header keys of a mark.
const (
	hdrMarkDeleted = "deleted"
	hdrMarkBudget  = "budget"
	hdrMarkSeal    = "seal"
)

// planMark is a plan's mark as read.
type planMark struct {
	exists   bool // a file stands where the mark goes
	valid    bool // and it is a mark the Store sealed under the storage's key
	rev      int64
	deleted  bool
	requires bool
	budget   string
	comments []document.Comment // the open ones
	raw      string
}

func (s *Store) markPath(name string) string { return MarksPath(s.Dir) + "/" + name }

// markSeal is the seal of m, the mark of plan name, under key.
func markSeal(key []byte, name string, m planMark) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("plan mark\n" + strconv.Quote(name) + "\n" + strconv.FormatInt(m.rev, 10) + "\n" +
		strconv.FormatBool(m.deleted) + "\n" + strconv.FormatBool(m.requires) + "\n" + strconv.Quote(m.budget)))
	if open := document.OpenCommentsText(m.comments); open != "" { // a mark without any seals as before
		mac.Write([]byte("\ncomments\n" + open))
	}
	return hex.EncodeToString(mac.Sum(nil))
}

// markContent is the file of mark m of plan name, sealed under key.
func markContent(key []byte, name string, m planMark) string {
	var b strings.Builder
	b.WriteString(document.HeaderFence + "revision: " + strconv.FormatInt(m.rev, 10) + "\n")
	if m.deleted {
		b.WriteString(hdrMarkDeleted + ": true\n")
	}
	if m.requires {
		b.WriteString(document.HdrRequiresApproval + ": true\n")
	}
	if m.budget != "" {
		document.WriteHeaderString(&b, hdrMarkBudget, m.budget)
	}
	document.WriteOpenComments(&b, m.comments)
	document.WriteHeaderString(&b, hdrMarkSeal, markSeal(key, name, m))
	b.WriteString(document.HeaderFence)
	return b.String()
}

// parseMark reads raw, the file at plan name's mark, checking its seal under key (nil: no
// key, so no mark holds).
func parseMark(key []byte, name, raw string) planMark {
	m := planMark{exists: true, raw: raw}
	rev, found := headerRevision(raw)
	if !found {
		return m
	}
	m.rev = rev
	for v := range headerValues(raw, hdrMarkDeleted) {
		m.deleted = v == "true"
	}
	m.requires = headerRequiresApproval(raw)
	var seal string
	for v := range headerValues(raw, hdrMarkBudget) {
		_ = document.DecodeJSONString(v, &m.budget)
	}
	for v := range headerValues(raw, hdrMarkSeal) {
		_ = document.DecodeJSONString(v, &seal)
	}
	m.comments = api.OpenComments(document.CommentsOfHeader(raw))
	m.valid = key != nil && seal != "" && hmac.Equal([]byte(seal), []byte(markSeal(key, name, m)))
	return m
}

// strayMark reports a read of a mark that found something else than a file (a folder, a
// link leading out, a file where the marks' folder goes, one over the size limit).
func strayMark(err error) bool {
	c := document.CodeOf(err)
	return c == document.CodeCorrupt || c == document.CodeTooLarge || strayTombstoneFolder(err) || errors.Is(err, driver.ErrNotRegularFile)
}

// readMark reads plan name's mark. A stray where it goes reads as a mark that does not hold:
// the plan counts as governed, and the next raise replaces it.
func (s *Store) readMark(ctx context.Context, name string) (planMark, error) {
	raw, exists, err := s.readRaw(ctx, s.markPath(name))
	if strayMark(err) {
		return planMark{exists: true}, nil
	}
	if err != nil || !exists {
		return planMark{}, err
	}
	key, err := s.approvalKey(ctx, false)
	if err != nil {
		return planMark{}, err
	}
	return parseMark(key, name, raw), nil
}

// raiseMark records that the Store wrote revision rev of plan name (deleted: deleted it at
// rev), with its requirement, budget and open comments, never lowering the revision
// recorded nor dropping a requirement or a deletion it records at that revision.
func (s *Store) raiseMark(ctx context.Context, name string, rev int64, deleted, requires bool, budget string, comments []document.Comment) error {
	p := s.markPath(name)
	return retryLostSwaps(name, func() string { return "mark " + name }, func() error {
		key, err := s.approvalKey(ctx, true)
		if err != nil {
			return err
		}
		raw, exists, err := s.readRaw(ctx, p)
		if strayMark(err) {
			if err := s.remove(ctx, p, "", true); err != nil {
				return err
			}
			raw, exists, err = "", false, nil
		}
		if err != nil {
			return err
		}
		next := planMark{rev: rev, deleted: deleted, requires: requires, budget: budget, comments: api.OpenComments(comments)}
		var old *string
		if exists {
			old = &raw
			if m := parseMark(key, name, raw); m.valid {
				switch {
				case m.rev > rev: // a file older than the mark: deleted, it takes the plan away at m.rev
					next = planMark{rev: m.rev, deleted: deleted || m.deleted, budget: m.budget, comments: m.comments}
				case m.rev == rev:
					next.deleted = deleted || m.deleted
				}
				next.requires = requires || m.requires
				if next.rev == m.rev && next.deleted == m.deleted && next.requires == m.requires && next.budget == m.budget &&
					document.OpenCommentsText(next.comments) == document.OpenCommentsText(m.comments) {
					return nil
				}
			}
		}
		return s.commit(ctx, p, old, markContent(key, name, next), "")
	})
}

// rolledBack is the refusal of plan file p that mark m shows was put back: older than the
// newest revision the Store wrote, or not newer than the revision it deleted the plan at.
func rolledBack(p *document.Plan, m planMark) error {
	if !m.valid || p.Revision > m.rev || p.Revision == m.rev && !m.deleted {
		return nil
	}
	return document.Fail(document.Error{Code: document.CodeRolledBack, Reason: document.ReasonRolledBack, Name: p.Name, Revision: p.Revision, CurrentRevision: m.rev})
}

// checkAtRest checks plan p as read from its file raw against its mark: a file put back is
// refused (rolledBack), and what its header carries is honoured only as far as its seals
// hold (checkSeals). A read made outside a change (no markSlot) of a plan with no mark checks
// its history instead (checkReadPast); again then reports a file that changed meanwhile,
// and p is what was stored when it was read, its seals checked.
func (s *Store) checkAtRest(ctx context.Context, p *document.Plan, file, raw string) (again bool, err error) {
	m, err := s.readMark(ctx, p.Name)
	if err != nil {
		return false, err
	}
	slot, inChange := ctx.Value(markSlot{}).(*markRead)
	if inChange {
		slot.mark, slot.read = m, true
	}
	if err := rolledBack(p, m); err != nil {
		return false, err
	}
	if !m.exists && !inChange {
		if again, err = s.checkReadPast(ctx, p.Name, file, p, raw); err != nil {
			return false, err
		}
	}
	s.checkSeals(ctx, p, &m)
	return again, nil
}

// markWrite raises plan name's mark after a write of next, when the plan is governed: it
// had a mark (m), or cur or next carries what a person set or decided. A mark that could
// not be raised stays behind the file, as after a crash, until the next write: the write
// itself landed, so it is not reported as failed.
func (s *Store) markWrite(ctx context.Context, next *document.Plan) {
	_ = s.raiseMark(ctx, next.Name, next.Revision, false, next.RequiresApproval, next.Budget, next.Comments)
}

// governs reports whether a write from cur to next (cur nil: a create) is of a governed
// plan, given its mark m.
func governs(m planMark, cur, next *document.Plan) bool {
	return m.exists || document.Sealed(cur) || document.Sealed(next)
}

// markDeleted raises plan name's mark to its deletion, when the plan was governed: it had a
// mark, or the file deleted (f) carried what a person set or decided.
func (s *Store) markDeleted(ctx context.Context, name string, f deleteTarget) {
	m, err := s.readMark(ctx, name)
	if err != nil {
		return
	}
	approved := false
	for range headerValues(f.raw, hdrApprovedHash) {
		approved = true
	}
	if !m.exists && !f.requiresApproval && !approved && !document.Sealed(f.plan) {
		return
	}
	_ = s.raiseMark(ctx, name, f.revision, true, f.requiresApproval, "", nil)
}

// hdrApprovedHash is the header key of an approval's seal (document/approval.go), read here
// in a file that may not decode.
const hdrApprovedHash = "approved_hash"

// markSlot keys the markRead a change's read of its plan fills in (withMarkSlot), so the
// change does not read the mark a second time.
type markSlot struct{}

// markRead is the mark a load found, once read is set.
type markRead struct {
	mark planMark
	read bool
}

// withMarkSlot returns ctx with an empty markRead for the loads made under it.
func withMarkSlot(ctx context.Context) (context.Context, *markRead) {
	slot := &markRead{}
	return context.WithValue(ctx, markSlot{}, slot), slot
}

// markOf is plan name's mark: the one a load under slot found, else read now.
func (s *Store) markOf(ctx context.Context, name string, slot *markRead) (planMark, error) {
	if slot.read {
		return slot.mark, nil
	}
	return s.readMark(ctx, name)
}
