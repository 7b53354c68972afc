package engine

import (
	"context"
	"crypto/hmac"
	"errors"
	"hash/crc32"
	"path"
	"slices"
	"strings"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

// Upgrades. Release 0.1.0 wrote format 1: no format line, history entries named by the
// CRC-32C of the file (<revision>.<8 hex digits>) and a plan file's replaces line giving that
// CRC-32C. This release serves no such entry (history.go): a CRC proves nothing. Check says
// what an upgrade left to do, reading only; Migrate converts what can be converted.
//
// Conversion verifies an old entry as the release that wrote it would have: its bytes match
// the CRC-32C that names it, it is the revision its name gives, and the revision after it
// names that CRC-32C. Then, from the oldest entry so verified up to the plan file, each file
// is rewritten with a format line and its replaces naming the SHA-256 of the (rewritten)
// file before it, under a name giving its own SHA-256, and its checksum line computed anew
// when it held before. Nothing else changes: not the revision, the body, the holds or the
// approval lines (the approval seal covers none of what changes, so approvals stay valid).
// The plan file's rewrite is a compare-and-swap on the file migrate read, under the plan's
// locks, like every write: should an agent write meanwhile, migrate starts again from its
// file, whose chain then runs through the entry the agent's write kept.

// Why an approval a plan file carries does not hold, in PlanCheck.Reapprove.
const (
	reapproveKeyMissing = "key_missing"
	reapproveKeyChanged = "key_changed"
	reapproveEdited     = "edited"
)

// Why a kept revision cannot be read, in PlanCheck.UnreadableReason.
const (
	unreadableForged      = "sha256_mismatch"
	unreadableCRCMismatch = "crc32c_mismatch"
)

// unreadableEntry is a kept revision that neither this release nor a conversion can prove.
type unreadableEntry struct {
	rev    int64
	reason string
}

// Check is plan.Store.Check, whose doc comment is the contract.
func (s *Store) Check(ctx context.Context) (*CheckReport, error) {
	out := &CheckReport{Format: document.FormatVersion, Plans: []PlanCheck{}}
	infos, err := s.Backend.LsInfo(ctx, &driver.LsInfoRequest{Path: s.Dir})
	if err != nil && !IsNotExist(err) {
		return nil, BackendError("list "+s.Dir, err)
	}
	for _, info := range infos {
		base := path.Base(info.Path)
		if name, ok := strings.CutSuffix(base, ".md"); ok && !info.IsDir && document.ValidateName(name) == nil {
			c, err := s.checkPlan(ctx, name)
			if err != nil {
				c = PlanCheck{Name: name, Error: err.Error()}
			}
			out.Plans = append(out.Plans, c)
		}
	}
	slices.SortFunc(out.Plans, func(a, b PlanCheck) int { return strings.Compare(a.Name, b.Name) })
	if legacy := path.Join(s.Dir, approvalKeyFile); s.GivenKey == nil && legacy != ApprovalKeyPath(s.Dir) {
		if _, found, err := s.readRaw(ctx, legacy); err == nil && found {
			out.LegacyKey = legacy
		}
	}
	var err2 error
	if out.LegacyData, err2 = s.holdsLegacyData(ctx); err2 != nil {
		return nil, err2
	}
	strays, err := s.Backend.LsInfo(ctx, &driver.LsInfoRequest{Path: s.strayDir()})
	if err == nil {
		for _, info := range strays {
			out.Strays = append(out.Strays, info.Path)
		}
		slices.Sort(out.Strays)
	}
	return out, nil
}

// checkPlan is Check for one plan; not_found when there is none.
func (s *Store) checkPlan(ctx context.Context, name string) (PlanCheck, error) {
	if err := document.ValidateName(name); err != nil {
		return PlanCheck{}, err
	}
	cur, raw, err := s.readAsStored(ctx, name)
	if err != nil {
		return PlanCheck{}, err
	}
	if m, err := s.readMark(ctx, name); err != nil || rolledBack(cur, m) != nil {
		return PlanCheck{}, errors.Join(err, rolledBack(cur, m)) // put back by hand: a person looks at it
	}
	c := PlanCheck{Name: name, Revision: cur.Revision, Format: document.FileFormat(raw)}
	c.Reapprove, err = s.reapprove(ctx, cur)
	if err != nil {
		return PlanCheck{}, err
	}
	chain, err := s.oldChain(ctx, cur, raw)
	if err != nil {
		return PlanCheck{}, err
	}
	for _, n := range chain.files[1:] {
		if n.crc {
			c.Convertible = append(c.Convertible, n.rev)
		}
	}
	if u := chain.unreadable; u != nil {
		c.UnreadableRevision, c.UnreadableReason = u.rev, u.reason
	}
	c.NeedsMigrate = c.Format < document.FormatVersion || len(c.Convertible) > 0
	c.NamesNoTools = cur.Approval != nil && c.Format < document.FormatVersion && namesNoTools(document.StepsOf(cur.Content))
	return c, nil
}

// namesNoTools reports steps left to do of which none names a tool in "(uses …)", nor does
// any finished step: every gated call under them is refused.
func namesNoTools(steps []document.Step) bool {
	left := false
	for _, s := range steps {
		if len(s.Uses) > 0 {
			return false
		}
		left = left || s.State == document.StepPending || s.State == document.StepInProgress
	}
	return left
}

// reapprove says why the approval p's file carries does not hold, without creating or
// moving the key.
func (s *Store) reapprove(ctx context.Context, p *document.Plan) (string, error) {
	if p.Approval == nil {
		return "", nil
	}
	key := s.GivenKey
	if key == nil {
		for _, at := range []string{ApprovalKeyPath(s.Dir), path.Join(s.Dir, approvalKeyFile)} {
			raw, found, err := s.readRaw(ctx, at)
			if err != nil {
				return "", err
			}
			if key = parseApprovalKey(raw); found && key != nil {
				break
			}
		}
	}
	switch {
	case key == nil:
		return reapproveKeyMissing, nil
	case sealHolds(key, p):
		return "", nil
	case p.Action != "" || p.Created: // its checksum holds: the Store wrote it so
		return reapproveKeyChanged, nil
	}
	return reapproveEdited, nil
}

// chainFile is one file of a plan's chain of kept revisions: the plan file, or an entry.
type chainFile struct {
	rev  int64
	raw  string
	path string // where it is stored
	crc  bool   // an entry format 1 kept, named by its CRC-32C
}

// chainOfFiles is a plan's chain from the plan file (first) down through the entries each
// file names, as far as they are proved, by a SHA-256 or, for entries of format 1, by the
// CRC-32C that names them; unreadable is where it ended at an entry proved by neither.
type chainOfFiles struct {
	files      []chainFile
	unreadable *unreadableEntry
}

// oldChain follows cur's chain (its file being raw) down to the oldest revision shown.
func (s *Store) oldChain(ctx context.Context, cur *document.Plan, raw string) (chainOfFiles, error) {
	out := chainOfFiles{files: []chainFile{{rev: cur.Revision, raw: raw, path: s.planPath(cur.Name)}}}
	if !s.keepsEntries() {
		return out, nil
	}
	oldest := s.oldestShown(cur.Revision)
	for p := cur; p.Replaces != "" && p.Revision-1 >= oldest; {
		rev, sum := p.Revision-1, p.Replaces
		at := s.entryPath(cur.Name, rev, sum)
		kept, exists, err := s.readRaw(ctx, at)
		if c := document.CodeOf(err); c == document.CodeCorrupt || c == document.CodeTooLarge || strayTombstoneFolder(err) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if !exists {
			return out, nil
		}
		crc := len(sum) == document.CrcEntryDigits
		reason := unreadableForged
		matches := entrySum(kept) == sum
		if crc {
			reason, matches = unreadableCRCMismatch, crcSum(kept) == sum
		}
		var next *document.Plan
		if matches {
			if next, err = document.DecodeSealed(cur.Name, kept); err != nil || next.Revision != rev {
				matches = false
			}
		}
		if !matches {
			out.unreadable = &unreadableEntry{rev: rev, reason: reason}
			return out, nil
		}
		out.files = append(out.files, chainFile{rev: rev, raw: kept, path: at, crc: crc})
		p = next
	}
	return out, nil
}

// crcSum is the CRC-32C of raw in 8 hex digits: the name format 1 gave an entry.
func crcSum(raw string) string {
	var scratch [document.CrcEntryDigits]byte
	return string(document.AppendHex32(scratch[:0], crc32.Update(0, document.Castagnoli, document.BytesOf(raw))))
}

// Migrate is plan.Store.Migrate, whose doc comment is the contract.
func (s *Store) Migrate(ctx context.Context, name string) (MigrateReport, error) {
	if err := document.ValidateName(name); err != nil {
		return MigrateReport{}, err
	}
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return MigrateReport{}, err
	}
	defer unlock()
	adopted, validated, unused, err := s.adoptLegacyKey(ctx) // a key left where 0.1.0 kept it
	if err != nil {
		return MigrateReport{}, err
	}
	var out MigrateReport
	err = retryLostSwaps(name, func() string { return "migrate " + s.planPath(name) }, func() (err error) {
		out, err = s.migrateOnce(ctx, name)
		return err
	})
	out.AdoptedKey, out.Validated, out.KeyNotAdopted = adopted, validated, unused
	return out, err
}

func (s *Store) migrateOnce(ctx context.Context, name string) (MigrateReport, error) {
	cur, raw, err := s.readAsStored(ctx, name)
	if err != nil {
		return MigrateReport{}, err
	}
	if err := document.CheckFormat(cur); err != nil {
		return MigrateReport{}, err
	}
	chain, err := s.oldChain(ctx, cur, raw)
	if err != nil {
		return MigrateReport{}, err
	}
	out := MigrateReport{Name: name, Revision: cur.Revision}
	if u := chain.unreadable; u != nil {
		out.UnreadableRevision, out.UnreadableReason = u.rev, u.reason
	}
	deepest := -1 // the newest file whose link to the one before is a CRC-32C
	for i, f := range chain.files[1:] {
		if f.crc {
			deepest = i
		}
	}
	if deepest < 0 && document.FileFormat(raw) >= document.FormatVersion {
		return out, nil
	}
	// From the oldest file that stays as it is up to the plan file: each rewritten so that
	// it names the SHA-256 of the one before.
	replaces := ""
	var stale []string
	if deepest >= 0 {
		base := chain.files[deepest+1]
		replaces = entrySum(base.raw)
		if at := s.entryPath(name, base.rev, replaces); at != base.path {
			if err := s.writeEntry(ctx, at, base.raw); err != nil {
				return MigrateReport{}, err
			}
			stale = append(stale, base.path)
		}
		for i := deepest; i >= 1; i-- {
			f := chain.files[i]
			next := upgradeFile(f.raw, replaces, s.resealed(ctx, name, f.raw, replaces))
			replaces = entrySum(next)
			if at := s.entryPath(name, f.rev, replaces); at != f.path {
				if err := s.writeEntry(ctx, at, next); err != nil {
					return MigrateReport{}, err
				}
				stale = append(stale, f.path)
			}
		}
		for _, f := range chain.files[1 : deepest+2] {
			out.Converted = append(out.Converted, f.rev)
		}
	}
	if replaces == "" {
		replaces = cur.Replaces
	}
	file := upgradeFile(raw, replaces, s.resealed(ctx, name, raw, replaces))
	if file != raw {
		if err := s.commit(ctx, s.planPath(name), &raw, file, ""); err != nil {
			return MigrateReport{}, err
		}
		s.forget(name)
		s.forgetEntries(name)
		if p, err := document.DecodeSealed(name, file); err == nil {
			s.decoded.wrote(name, file, p, false)
		}
		out.Rewritten = true
	}
	for _, p := range stale {
		_ = s.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: p})
	}
	return out, nil
}

// upgradeFile is raw, a stored plan file, in the current format: the format line first in
// its header, replaces naming the given sum (when the file has a replaces line), the seal
// lines given in seals (header key to JSON value) in place of its own, and its checksum line
// computed anew when it held for raw. Every other byte stays.
func upgradeFile(raw, replaces string, seals map[string]string) string {
	rest, ok := strings.CutPrefix(raw, document.HeaderFence)
	if !ok {
		return raw
	}
	var check document.ChangeCheck
	var lines []string
	checksumAt := -1
	for {
		line, after, found := strings.Cut(rest, "\n")
		if !found {
			return raw // not closed: not a file the Store wrote
		}
		if line == "---" {
			break
		}
		key, _, _ := strings.Cut(line, ": ")
		switch key {
		case document.HdrFormat:
			rest = after
			continue
		case document.HdrReplaces:
			line = document.HdrReplaces + ": " + `"` + replaces + `"`
		case hdrSealedLine, hdrApprovedHash:
			if v, ok := seals[key]; ok {
				line = key + ": " + v
			}
		case document.HdrChecksum:
			check.Found(raw, after, len(line)+1, strings.TrimPrefix(line, document.HdrChecksum+": "))
			checksumAt = len(lines)
		}
		lines = append(lines, line)
		rest = after
	}
	body := rest[len("---\n"):]
	held := checksumAt >= 0 && check.Holds(raw)
	var b strings.Builder
	b.Grow(len(raw) + 80)
	b.WriteString(document.HeaderFence)
	b.WriteString(document.FormatLine)
	for i, line := range lines {
		if i == checksumAt && held {
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if held {
		// As writeChecksum: the CRC-32C of the file without this line, which stays in place
		// (last in the header when the Store wrote it).
		head := b.String()
		tail := strings.Join(lines[checksumAt+1:], "\n")
		if tail != "" {
			tail += "\n"
		}
		head = head[:len(head)-len(tail)]
		sum := crc32.Update(0, document.Castagnoli, document.BytesOf(head))
		sum = crc32.Update(sum, document.Castagnoli, document.BytesOf(tail))
		sum = crc32.Update(sum, document.Castagnoli, document.BytesOf(document.HeaderFence))
		sum = crc32.Update(sum, document.Castagnoli, document.BytesOf(body))
		out := head + document.HdrChecksum + `: "` + string(document.AppendHex32(nil, sum)) + "\"\n" + tail + document.HeaderFence + body
		return out
	}
	b.WriteString(document.HeaderFence)
	b.WriteString(body)
	return b.String()
}

// readAsStored reads and decodes the plan file of name as it is stored, its approval
// unchecked, so Check can say why a seal fails and Migrate rewrites only what it converts.
func (s *Store) readAsStored(ctx context.Context, name string) (*document.Plan, string, error) {
	raw, exists, err := s.readRaw(ctx, s.planPath(name))
	if err != nil {
		return nil, "", err
	}
	if !exists {
		return nil, "", notFound(name)
	}
	cur, err := document.DecodeSealed(name, raw)
	return cur, raw, err
}

// hdrSealedLine is the header key of a plan file's header seal (document/header_seal.go).
const hdrSealedLine = "sealed"

// resealed is what the seals of raw, a file of plan name that migrate gives a new replaces
// line, become: each seal of this release that held for raw (the header seal, the approval
// seal), computed anew over replaces, so a conversion never voids them. Seals of earlier
// releases cover no replaces line and stay as they are.
func (s *Store) resealed(ctx context.Context, name, raw, replaces string) map[string]string {
	p, err := document.DecodeSealed(name, raw)
	if err != nil || p.Replaces == replaces {
		return nil
	}
	key, err := s.approvalKey(ctx, false)
	if err != nil || key == nil {
		return nil
	}
	next := document.CopyPlan(p)
	next.Replaces = replaces
	out := map[string]string{}
	if p.HeaderSeal != "" && hmac.Equal([]byte(p.HeaderSeal), []byte(headerSeal(key, p))) {
		out[hdrSealedLine] = `"` + headerSeal(key, next) + `"`
	}
	if p.Approval != nil && hmac.Equal([]byte(p.Seal), []byte(approvalSeal(key, p))) {
		out[hdrApprovedHash] = `"` + approvalSeal(key, next) + `"`
	}
	return out
}
