package document

import (
	"encoding/json"
	"hash/crc32"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// EncodePlan renders p as it is stored: a header of `key: value` lines between two "---"
// lines, each value a JSON scalar (so YAML readers parse it too), then the body unchanged.
// The name is not stored: it is the file name.
func EncodePlan(p *Plan) string {
	var b strings.Builder
	b.Grow(len(p.Content) + 280 + len(p.Title) + len(p.Status) + len(p.Author) + len(p.ChangedBy) + len(p.Holds))
	b.WriteString(HeaderFence)
	b.WriteString(FormatLine)
	WriteHeaderString(&b, "title", p.Title)
	WriteHeaderString(&b, "status", p.Status)
	WriteHeaderString(&b, "author", p.Author)
	b.WriteString("revision: ")
	b.WriteString(strconv.FormatInt(p.Revision, 10))
	b.WriteByte('\n')
	// A timestamp and a hash in hex never need escaping: written in place, without a copy.
	var scratch [40]byte
	b.WriteString(`updated_at: "`)
	b.Write(p.UpdatedAt.UTC().AppendFormat(scratch[:0], time.RFC3339Nano))
	b.WriteString("\"\n")
	writeChange(&b, p)
	if p.StepsRev > 0 && p.StepsRev < p.Revision { // absent: the steps changed at this revision
		b.WriteString("steps_revision: ")
		b.Write(strconv.AppendInt(scratch[:0], p.StepsRev, 10))
		b.WriteString("\n" + hdrStepsBody + `: "`)
		b.Write(appendStepsBodyHash(scratch[:0], p.Content))
		b.WriteString("\"\n")
	}
	if p.Holds != "" {
		WriteHeaderString(&b, hdrHolds, p.Holds)
	}
	if p.ExpiredHold != "" {
		WriteHeaderString(&b, hdrHoldExpired, p.ExpiredHold)
	}
	if p.RenewalNotes != "" {
		WriteHeaderString(&b, hdrRenewalNotes, p.RenewalNotes)
	}
	if p.RequiresApproval {
		b.WriteString(HdrRequiresApproval + ": true\n")
	}
	if p.Budget != "" {
		WriteHeaderString(&b, hdrBudget, p.Budget)
	}
	writeApproval(&b, p)
	writeDecisions(&b, p)
	writeComments(&b, p)
	writeHeaderSeal(&b, p)
	writeChecksum(&b, p)
	b.WriteString(HeaderFence)
	b.WriteString(p.Content)
	return b.String()
}

// DecodePlan parses a stored plan. Anything that is not a header this package could have
// written (no opening or closing fence, a line that is not `key: JSON scalar`, a negative
// revision, a bad timestamp) is an *Error with CodeCorrupt. Unknown keys are ignored so
// newer writers stay readable. A header without revision decodes as revision 0.
//
// The plan it returns is never approved (Approval is nil), whatever approval lines the file
// holds: an approval counts only when its seal is the storage's, and only a Store, which
// reads the key, can check that (Store.Get, GetRevision and List report verified approvals).
// So neither DecodePlan nor Summarize of its result can be made to report an approval by
// whoever writes a file; EncodePlan of its result writes no approval lines.
func DecodePlan(name, raw string) (*Plan, error) {
	p, err := DecodeSealed(name, raw)
	if err == nil {
		p.Approval, p.Seal = nil, ""
	}
	return p, err
}

// DecodeSealed is DecodePlan keeping the file's approval with its seal, unchecked: the Store
// checks the seal (checkApprovalSeal) before anyone reads it. Approval lines that are
// malformed leave the plan not approved.
func DecodeSealed(name, raw string) (*Plan, error) {
	p, why := decodeFile(raw)
	if why != "" {
		return nil, corrupt(name, why)
	}
	p.Name = name
	return p, nil
}

// decodeFile reads a plan file, whatever it is named; why says what makes it undecodable.
func decodeFile(raw string) (p *Plan, why string) {
	if !strings.HasPrefix(raw, HeaderFence) {
		return nil, "missing the opening --- line"
	}
	p = &Plan{}
	stepsBody := "" // the raw steps_body value
	var approval approvalHeader
	var check ChangeCheck
	rest := raw[len(HeaderFence):]
	for {
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return nil, "header is not closed by a --- line"
		}
		line := rest[:nl]
		rest = rest[nl+1:]
		if line == "---" {
			break
		}
		key, value, ok := strings.Cut(line, ": ")
		if !ok {
			return nil, "header line is not `key: value`"
		}
		if approval.take(key, value) {
			continue
		}
		if key == hdrStepsBody {
			stepsBody = value
			continue
		}
		if setDecisionHeader(p, key, value) || setCommentHeader(p, key, value) || setHeaderSeal(p, key, value) {
			continue
		}
		if key == HdrChecksum {
			check.Found(raw, rest, len(line)+1, value)
			continue
		}
		if err := setHeader(p, key, value); err != nil {
			return nil, err.Error()
		}
	}
	p.Content = rest
	settleDecisions(p)
	settleComments(p)
	if !check.Holds(raw) {
		p.Action, p.Created, p.ChangedBy = "", false, "" // edited by hand: nobody known did it
	}
	p.Approval, p.Seal = approval.approval(p.Revision)
	// steps_revision holds only for the body the Store wrote with it: after an edit by hand
	// the steps count as changed at the current revision.
	if p.StepsRev == 0 || p.StepsRev >= p.Revision || stepsBody != `"`+stepsBodyHash(rest)+`"` {
		p.StepsRev = p.Revision
	}
	SettleOverBudget(p)
	return p, ""
}

// HdrRequiresApproval is the header key of Plan.RequiresApproval.
const HdrRequiresApproval = "requires_approval"

// hdrStepsBody is the header key of the hash of the body steps_revision was written with.
const hdrStepsBody = "steps_body"

// stepsBodyHash is the CRC-32C of a plan's body, in hex: a check against edits by hand, not
// against forgery, cheap enough (hardware CRC) to verify on every read.
func stepsBodyHash(body string) string {
	var scratch [8]byte
	return string(appendStepsBodyHash(scratch[:0], body))
}

// appendStepsBodyHash appends stepsBodyHash(body) to dst.
func appendStepsBodyHash(dst []byte, body string) []byte {
	// Read in place (crc32 only reads), so no read of a plan copies its body again.
	sum := crc32.Update(0, Castagnoli, BytesOf(body))
	return strconv.AppendUint(dst, uint64(sum), 16)
}

func setHeader(p *Plan, key, value string) error {
	switch key {
	case "title":
		return DecodeJSONString(value, &p.Title)
	case "status":
		return DecodeJSONString(value, &p.Status)
	case "author":
		return DecodeJSONString(value, &p.Author)
	case "revision":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 {
			return ErrString("revision is not a non-negative integer")
		}
		p.Revision = n
	case HdrRequiresApproval:
		p.RequiresApproval = value == "true"
	case hdrBudget:
		// A budget that does not read bounds nothing.
		if DecodeJSONString(value, &p.Budget) != nil || !budgetReads(p.Budget) {
			p.Budget = ""
		}
	case HdrFormat:
		p.NewerFormat = newerFormat(value)
	case "steps_revision":
		// Only a hint for judging stale step moves: a bad value is no value.
		if n, err := strconv.ParseInt(value, 10, 64); err == nil && n > 0 {
			p.StepsRev = n
		}
	case hdrHolds:
		// Only a hint for leases: a bad value counts each hold from updated_at.
		_ = DecodeJSONString(value, &p.Holds)
	case hdrHoldExpired:
		_ = DecodeJSONString(value, &p.ExpiredHold)
	case hdrRenewalNotes:
		// In its one form only (the seal covers it): a bad entry is no note to replace.
		var notes string
		if DecodeJSONString(value, &notes) == nil {
			p.RenewalNotes = formatRenewalNotes(parseRenewalNotes(notes))
		}
	case hdrChange:
		// Only a record for the history: a bad value is an unknown change.
		var action string
		if DecodeJSONString(value, &action) == nil {
			p.Action, p.Created = Action(action), action == changeCreate
			if p.Created {
				p.Action = ActionWrite
			}
		}
	case hdrChangedBy:
		_ = DecodeJSONString(value, &p.ChangedBy)
	case HdrReplaces:
		_ = DecodeJSONString(value, &p.Replaces)
	case "updated_at":
		var s string
		if err := DecodeJSONString(value, &s); err != nil {
			return err
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return ErrString("updated_at is not an RFC 3339 time")
		}
		// An offset can move a time at the edge of year 0 or 9999 out of the years RFC 3339
		// expresses; EncodePlan writes UTC, so such a plan could not be written back.
		if t = t.UTC(); t.Year() < 0 || t.Year() > 9999 {
			return ErrString("updated_at is outside the years 0000 to 9999 in UTC")
		}
		p.UpdatedAt = t
	}
	return nil
}

// corrupt is the refusal of the file of plan name, undecodable for reason why.
func corrupt(name, why string) *Error {
	e := Fail(Error{Code: CodeCorrupt, Reason: reasonUndecodable, Name: name})
	e.Message += " (" + why + ")"
	return e
}

// Header values are JSON strings: how one is written and read back.

func WriteHeaderString(b *strings.Builder, key, value string) {
	b.WriteString(key)
	b.WriteString(": ")
	writeJSONString(b, value)
	b.WriteByte('\n')
}

// writeJSONString writes s as a JSON string without HTML escaping, so titles stay readable.
// Header strings are valid UTF-8 (the Store rejects anything else).
func writeJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	if !needsEscape(s) {
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == 0x7f {
			return true
		}
	}
	return false
}

type ErrString string

func (e ErrString) Error() string { return string(e) }

func DecodeJSONString(value string, out *string) error {
	if len(value) < 2 || value[0] != '"' {
		return ErrString("header value is not a JSON string")
	}
	if !strings.ContainsRune(value, '\\') && strings.IndexByte(value[1:], '"') == len(value)-2 && utf8.ValidString(value) {
		*out = value[1 : len(value)-1]
		return nil
	}
	if err := json.Unmarshal([]byte(value), out); err != nil {
		return ErrString("header value is not a JSON string")
	}
	return nil
}
