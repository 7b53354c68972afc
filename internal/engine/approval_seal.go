package engine

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

// An approval is sealed with a key that only the Store reads: the HMAC-SHA256, under the
// storage's key, of the plan's name, the approved revision, who approved and when, the
// revision of the file that carries it, and the body with every step marker read as
// pending. Whoever can write a plan file but cannot read the key (a model through the file
// tools, which keep out of the plans folder and the key; a person or program given the plan
// files only) cannot make a plan read as approved: an edited body, a copied header, or a
// plain hash all read as not approved. Whoever can read the key can: it is either the host's
// (StoreConfig.ApprovalKey) or a file beside the plans folder, never in it
// (approvalKeyPath), which a LocalBackend writes with mode 0600.

// approvalKeyFile names the key file: <parent>/.<folder>.approval-key beside the plans
// folder, and <BaseDir>/.approval-key where earlier versions kept it, inside the folder.
const approvalKeyFile = ".approval-key"

// ApprovalKeyPath is where the Store keeps the key of the plans folder dir: beside it, so
// nothing that reads or lists the plans folder finds it. A Store whose BaseDir is "/" has no
// place outside its folder, and keeps the key at /.approval-key: give it
// StoreConfig.ApprovalKey.
func ApprovalKeyPath(dir string) string {
	return besideFolder(dir, approvalKeyFile)
}

// besideFolder is the path <parent>/.<folder><suffix> beside the plans folder dir, out of
// every listing of it; /<suffix> when dir is "/", which has no place outside it.
func besideFolder(dir, suffix string) string {
	if dir == "/" {
		return "/" + suffix
	}
	parent, base := path.Split(dir)
	return parent + "." + base + suffix
}

// privateWriter is a Backend that can write a file only the user running the process may
// read (LocalBackend: mode 0600, whatever its WithPermissions say).
type privateWriter interface {
	WritePrivate(ctx context.Context, req *driver.WriteRequest) error
}

// approvalKey returns the storage's approval key: StoreConfig.ApprovalKey when given, else
// the key file's, created when create is set and there is none; nil (and no error) when
// there is none and create is not set. A key file once read is kept for every Store on the
// storage in the process. A key file inside the plans folder, where 0.1.0 kept it, is never
// taken here: whoever can write plan files could have put it there, so only a person's
// migration adopts it (adoptLegacyKey).
func (s *Store) approvalKey(ctx context.Context, create bool) ([]byte, error) {
	if s.GivenKey != nil {
		return s.GivenKey, nil
	}
	s.shared.keyMu.Lock()
	defer s.shared.keyMu.Unlock()
	if s.shared.key != nil {
		return s.shared.key, nil
	}
	p, legacy := ApprovalKeyPath(s.Dir), path.Join(s.Dir, approvalKeyFile)
	for range 3 {
		raw, exists, err := s.readRaw(ctx, p)
		if err != nil {
			return nil, err
		}
		if key := parseApprovalKey(raw); exists && key != nil {
			if p != legacy {
				s.dropLegacyKey(ctx, legacy)
			}
			s.shared.key = key
			return key, nil
		}
		// None, or not a key the Store wrote: nothing it seals can be verified, so approvals
		// read as not approved, and the next approval replaces it.
		if !create {
			return nil, nil
		}
		key := make([]byte, minApprovalKey)
		if _, err := rand.Read(key); err != nil {
			return nil, BackendError("make an approval key", err)
		}
		next := hex.EncodeToString(key) + "\n"
		var old *string
		if exists {
			old = &raw
		}
		if err := s.createOnce(ctx, p, old, next); err != nil && !errors.Is(err, errLostSwap) {
			return nil, err
		}
		// Read it back: another process may have made the key first.
	}
	return nil, document.Fail(document.Error{Code: document.CodeBackendError, Reason: document.ReasonContention, Name: approvalKeyFile})
}

// parseApprovalKey is the key a key file holds, or nil when it holds none the Store wrote.
func parseApprovalKey(raw string) []byte {
	key, err := hex.DecodeString(strings.TrimSpace(raw))
	if err != nil || len(key) < minApprovalKey {
		return nil
	}
	return key
}

// adoptLegacyKey moves a key file left inside the plans folder by 0.1.0 beside the folder,
// so the approvals it sealed hold again; unless a key beside the folder exists already (then
// the one inside is removed). Whoever can write plan files could have planted that key, so
// only a person's migration adopts it (Store.Migrate), only when asked
// (StoreConfig.AdoptLegacyKey), and only where some plan file is still in 0.1.0's format.
// It returns the key adopted and the approvals it makes valid, or the key left unused.
func (s *Store) adoptLegacyKey(ctx context.Context) (adopted string, validated []AdoptedApproval, unused string, err error) {
	p, legacy := ApprovalKeyPath(s.Dir), path.Join(s.Dir, approvalKeyFile)
	if s.GivenKey != nil || p == legacy {
		return "", nil, "", nil
	}
	s.shared.keyMu.Lock()
	defer s.shared.keyMu.Unlock()
	old, found, err := s.readRaw(ctx, legacy)
	if err != nil || !found {
		return "", nil, "", err
	}
	raw, exists, err := s.readRaw(ctx, p)
	if err != nil {
		return "", nil, "", err
	}
	if exists && parseApprovalKey(raw) != nil {
		s.dropLegacyKey(ctx, legacy) // the key beside the folder is the one in use
		return "", nil, "", nil
	}
	key := parseApprovalKey(old)
	if key == nil || !s.adoptKey {
		return "", nil, legacy, nil
	}
	if legacyData, err := s.holdsLegacyData(ctx); err != nil || !legacyData {
		return "", nil, legacy, err
	}
	if validated, err = s.approvalsUnder(ctx, key); err != nil {
		return "", nil, "", err
	}
	var prev *string
	if exists {
		prev = &raw
	}
	if err := s.createOnce(ctx, p, prev, old); err != nil && !errors.Is(err, errLostSwap) {
		return "", nil, "", err
	}
	s.shared.key = nil // read again: the key beside the folder is the one in use
	s.dropLegacyKey(ctx, legacy)
	return legacy, validated, "", nil
}

// planFiles yields the name and file of every plan in the folder, in the order listed.
func (s *Store) planFiles(ctx context.Context, each func(name, raw string) bool) error {
	infos, err := s.Backend.LsInfo(ctx, &driver.LsInfoRequest{Path: s.Dir})
	if err != nil && !IsNotExist(err) {
		return BackendError("list "+s.Dir, err)
	}
	for _, info := range infos {
		name, ok := strings.CutSuffix(path.Base(info.Path), ".md")
		if !ok || info.IsDir || document.ValidateName(name) != nil {
			continue
		}
		raw, found, err := s.readRaw(ctx, s.planPath(name))
		if err != nil || !found {
			continue // gone, or not a plan file: nothing of 0.1.0's to tell
		}
		if !each(name, raw) {
			break
		}
	}
	return nil
}

// holdsLegacyData reports whether some plan file of the folder is in 0.1.0's format (no
// format line): the one sign that a key inside the folder may be 0.1.0's.
func (s *Store) holdsLegacyData(ctx context.Context) (bool, error) {
	legacy := false
	err := s.planFiles(ctx, func(_, raw string) bool {
		legacy = document.FileFormat(raw) < document.FormatVersion
		return !legacy
	})
	return legacy, err
}

// approvalsUnder lists the approvals the plan files carry whose seal holds under key, in
// name order.
func (s *Store) approvalsUnder(ctx context.Context, key []byte) ([]AdoptedApproval, error) {
	var out []AdoptedApproval
	err := s.planFiles(ctx, func(name, raw string) bool {
		if p, err := document.DecodeSealed(name, raw); err == nil && p.Approval != nil && sealHolds(key, p) {
			out = append(out, AdoptedApproval{Name: name, Revision: p.Approval.Revision, By: p.Approval.By})
		}
		return true
	})
	slices.SortFunc(out, func(a, b AdoptedApproval) int { return strings.Compare(a.Name, b.Name) })
	return out, err
}

// dropLegacyKey removes the key an earlier version kept inside the plans folder, once the
// key file beside the folder holds the key. A failure leaves it for the next process to
// remove; the key in use is the one beside the folder either way.
func (s *Store) dropLegacyKey(ctx context.Context, legacy string) {
	if _, found, err := s.readRaw(ctx, legacy); err == nil && found {
		_ = s.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: legacy})
	}
}

// createOnce writes content at p only where p still holds old (nil: nothing): with a Swapper
// by compare-and-swap, otherwise under the folder entry's lock, privately where the Backend
// can write so.
func (s *Store) createOnce(ctx context.Context, p string, old *string, content string) error {
	if s.swapper != nil {
		return s.commit(ctx, p, old, content, "")
	}
	unlock, err := s.lockFolderEntry(ctx, approvalKeyFile)
	if err != nil {
		return err
	}
	defer unlock()
	raw, exists, err := s.readRaw(ctx, p)
	if err != nil || exists != (old != nil) || exists && raw != *old {
		return err // someone else wrote it first: read it back
	}
	if pw, ok := capability[privateWriter](s.Backend); ok {
		if err := pw.WritePrivate(ctx, &driver.WriteRequest{FilePath: p, Content: content}); err != nil {
			return BackendError("write "+p, err)
		}
		return nil
	}
	return s.commit(ctx, p, old, content, "")
}

// approvalSeal is the seal of p's approval under key. It covers p's own revision too, and
// every write seals anew: revisions never repeat, so approval lines copied from another
// revision (one before a revoke, a deleted plan's) read as not approved. It covers the body
// as written, step markers included: an edit outside the Store that only marks steps done
// changes which steps are done, so it voids the approval; so does one that drops the plan's
// approval requirement (Plan.RequiresApproval), raises its budget, or names another file as
// the one it replaced (the root of its history), which it covers too.
func approvalSeal(key []byte, p *document.Plan) string {
	head := "plan approval of the body and header as written, budget " + strconv.Quote(p.Budget) + ", replaces " + strconv.Quote(p.Replaces)
	if p.RequiresApproval {
		head += ", approval required"
	}
	return sealOver(key, p, head, p.Content)
}

// bodySeal is the seal the release before wrote, over the body as written but not the
// budget nor the replaced file. It is still accepted for a plan sealed before the upgrade,
// until its next write seals it with approvalSeal; no seal the Store writes now is one.
func bodySeal(key []byte, p *document.Plan) string {
	head := "plan approval of the body as written"
	if p.RequiresApproval {
		head += ", approval required"
	}
	return sealOver(key, p, head, p.Content)
}

// markerBlindSeal is the seal earlier versions wrote, over the body with every step marker
// read as pending. It is still accepted for a plan sealed before the upgrade, until its next
// write seals it with approvalSeal; no seal the Store writes now is one.
func markerBlindSeal(key []byte, p *document.Plan) string {
	return sealOver(key, p, "plan approval", document.ApprovedBody(p.Content))
}

func sealOver(key []byte, p *document.Plan, head, body string) string {
	a := p.Approval
	mac := hmac.New(sha256.New, key)
	if p.RenewalNotes != "" {
		head += ", renewal notes " + p.RenewalNotes // which note a renewal replaces
	}
	mac.Write([]byte(head + "\n" + p.Name + "\n" + strconv.FormatInt(a.Revision, 10) + "\n" + a.By + "\n" +
		a.At.UTC().Format(time.RFC3339Nano) + "\n" + strconv.FormatInt(p.Revision, 10) + "\n"))
	mac.Write([]byte(body))
	return hex.EncodeToString(mac.Sum(nil))
}

// sealApproval seals next's approval before it is written; a plan that is not approved
// carries no seal.
func (s *Store) sealApproval(ctx context.Context, next *document.Plan, create bool) error {
	next.Seal = ""
	if next.Approval == nil {
		return nil
	}
	key, err := s.approvalKey(ctx, create)
	if err != nil {
		return err
	}
	if key == nil {
		next.Approval = nil // approved under no key: never, so nothing to keep
		return nil
	}
	next.Seal = approvalSeal(key, next)
	return nil
}

// checkApprovalSeal is checkSeals for a plan read without its mark: a kept revision, whose
// bytes the history's chain proves, or a file a watcher was told of.
func (s *Store) checkApprovalSeal(ctx context.Context, p *document.Plan) {
	if p != nil {
		s.checkSeals(ctx, p, nil)
	}
}

// checkSeals drops from a plan read from storage what its seals do not vouch for. A waiting
// run, a rejection and people's comments count only under a header seal that holds: nobody without the key can
// make WaitDecision or Plan.Rejection report a person's decision. The approval counts only
// under an approval seal that holds. A governed plan (its file carries a header seal, or it
// has a mark m) whose header seal does not hold is not approved, starts its history at
// itself (its replaces line is not honoured), and has the budget and the open comments its
// mark records (a comment deleted by hand still blocks a request for approval). A mark
// that records the approval requirement puts the plan under it, whatever its file says.
func (s *Store) checkSeals(ctx context.Context, p *document.Plan, m *planMark) {
	var key []byte
	if p.HeaderSeal != "" || p.Approval != nil || m != nil && m.exists {
		key, _ = s.approvalKey(ctx, false)
	}
	if key == nil || p.HeaderSeal == "" || !hmac.Equal([]byte(p.HeaderSeal), []byte(headerSeal(key, p))) {
		p.Waiting, p.Rejection, p.Comments = nil, nil, nil
		if p.HeaderSeal != "" || m != nil && m.exists {
			p.Approval, p.Seal, p.Replaces = nil, "", ""
			if m != nil && m.valid {
				p.Budget, p.Comments = m.budget, slices.Clone(m.comments) // rollback_mark.go
			}
		}
		p.HeaderSeal = ""
	}
	if m != nil && m.valid && m.requires {
		p.RequiresApproval = true
	}
	if p.Approval != nil && (key == nil || !sealHolds(key, p)) {
		p.Approval, p.Seal = nil, ""
	}
	document.SettleOverBudget(p) // the budget may be the mark's
}

// headerSeal is the seal of what a person set or decided in p's header
// (document.SealedHeader) under key.
func headerSeal(key []byte, p *document.Plan) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(document.SealedHeader(p)))
	return hex.EncodeToString(mac.Sum(nil))
}

// sealHeader seals next's header before it is written, when the plan is governed; the key is
// made then if the storage has none.
func (s *Store) sealHeader(ctx context.Context, next *document.Plan, governed bool) error {
	next.HeaderSeal = ""
	if !governed {
		return nil
	}
	key, err := s.approvalKey(ctx, true)
	if err != nil {
		return err
	}
	next.HeaderSeal = headerSeal(key, next)
	return nil
}

// sealHolds reports whether p's approval was sealed under key: by this release, or by an
// earlier one whose seal did not cover the budget and the replaced file, or the step markers
// (until the plan's next write).
func sealHolds(key []byte, p *document.Plan) bool {
	return hmac.Equal([]byte(p.Seal), []byte(approvalSeal(key, p))) ||
		hmac.Equal([]byte(p.Seal), []byte(bodySeal(key, p))) ||
		hmac.Equal([]byte(p.Seal), []byte(markerBlindSeal(key, p)))
}
