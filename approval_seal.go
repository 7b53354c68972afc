package plan

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path"
	"strconv"
	"strings"
	"time"
)

// An approval is sealed with a key that only the Store reads: the HMAC-SHA256, under the
// storage's key, of the plan's name, the approved revision, who approved and when, the
// revision of the file that carries it, and the body with every step marker read as pending. Whoever can write a plan file but cannot read
// the key (a model through the file tools, which keep out of the plans folder; a person or
// program given the plan files only) cannot make a plan read as approved: an edited body, a
// copied header, or a plain hash all read as not approved. Whoever can read the key (it is
// stored beside the plans, at <BaseDir>/.approval-key) can: protect that file as you would a
// signing key.

// approvalKeyFile is where a storage folder keeps the key approvals are sealed with.
const approvalKeyFile = ".approval-key"

// approvalKey returns the storage's approval key, creating it when create is set and there
// is none; nil (and no error) when there is none and create is not set. A key once read is
// kept for every Store on the storage in the process.
func (s *Store) approvalKey(ctx context.Context, create bool) ([]byte, error) {
	s.shared.keyMu.Lock()
	defer s.shared.keyMu.Unlock()
	if s.shared.key != nil {
		return s.shared.key, nil
	}
	p := path.Join(s.dir, approvalKeyFile)
	for range 3 {
		raw, exists, err := s.readRaw(ctx, p)
		if err != nil {
			return nil, err
		}
		if exists {
			if key, err := hex.DecodeString(strings.TrimSpace(raw)); err == nil && len(key) >= 32 {
				s.shared.key = key
				return key, nil
			}
			// Not a key the Store wrote: nothing it seals can be verified, so approvals
			// read as not approved, and the next approval replaces it.
		}
		if !create {
			return nil, nil
		}
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, backendError("make an approval key", err)
		}
		var old *string
		if exists {
			old = &raw
		}
		if err := s.createOnce(ctx, p, old, hex.EncodeToString(key)+"\n"); err != nil && !errors.Is(err, errLostSwap) {
			return nil, err
		}
		// Read it back: another process may have made the key first.
	}
	return nil, fail(Error{Code: CodeBackendError, Reason: reasonContention, Name: approvalKeyFile})
}

// createOnce writes content at p only where p still holds old (nil: nothing): with a Swapper
// by compare-and-swap, otherwise under the folder entry's lock.
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
	return s.commit(ctx, p, old, content, "")
}

// approvalSeal is the seal of p's approval under key. It covers p's own revision too, and
// every write seals anew: revisions never repeat, so approval lines copied from another
// revision (one before a revoke, a deleted plan's) read as not approved.
func approvalSeal(key []byte, p *Plan) string {
	a := p.Approval
	mac := hmac.New(sha256.New, key)
	head := "plan approval\n"
	if p.renewalNotes != "" {
		head = "plan approval, renewal notes " + p.renewalNotes + "\n" // which note a renewal replaces
	}
	mac.Write([]byte(head + p.Name + "\n" + strconv.FormatInt(a.Revision, 10) + "\n" + a.By + "\n" +
		a.At.UTC().Format(time.RFC3339Nano) + "\n" + strconv.FormatInt(p.Revision, 10) + "\n"))
	mac.Write([]byte(approvedBody(p.Content)))
	return hex.EncodeToString(mac.Sum(nil))
}

// sealApproval seals next's approval before it is written; a plan that is not approved
// carries no seal.
func (s *Store) sealApproval(ctx context.Context, next *Plan, create bool) error {
	next.seal = ""
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
	next.seal = approvalSeal(key, next)
	return nil
}

// checkApprovalSeal drops the approval of a plan read from storage unless its seal is the
// Store's: a forged or edited approval reads as not approved.
func (s *Store) checkApprovalSeal(ctx context.Context, p *Plan) {
	if p == nil || p.Approval == nil {
		return
	}
	key, err := s.approvalKey(ctx, false)
	if err != nil || key == nil || !hmac.Equal([]byte(p.seal), []byte(approvalSeal(key, p))) {
		p.Approval, p.seal = nil, ""
	}
}
