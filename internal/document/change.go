package document

import (
	"crypto/sha256"
	"hash/crc32"
	"strings"
	"unsafe"

	"github.com/einoplan/plan/internal/diff"
)

// A plan file records the change that made it, so that a kept revision, which is the plan
// file as it was, says who did what (history.go):
//
//	change: "step"          the action; "create" for the first revision of a plan
//	changed_by: "worker-2"  who made it, when anyone was named
//	replaces: "9f86d0…"     the SHA-256 of the file it replaced: its history entry's name
//	checksum: "5e6f7a8b"    the CRC-32C of the whole file without this line
//
// The checksum tells the Store's record from an edit by hand: a file that no longer matches
// it reads as changed by nobody known. replaces stays true across such an edit, since a
// person cannot change the file that came before.
const (
	hdrChange    = "change"
	hdrChangedBy = "changed_by"
	HdrReplaces  = "replaces"
	HdrChecksum  = "checksum"
	changeCreate = "create"
)

// writeChange writes the lines that record the change that made p, when known.
func writeChange(b *strings.Builder, p *Plan) {
	switch {
	case p.Created:
		WriteHeaderString(b, hdrChange, changeCreate)
	case p.Action != "":
		WriteHeaderString(b, hdrChange, string(p.Action))
	default:
		return
	}
	if p.ChangedBy != "" {
		WriteHeaderString(b, hdrChangedBy, p.ChangedBy)
	}
	if p.Replaces != "" {
		WriteHeaderString(b, HdrReplaces, p.Replaces)
	}
}

// writeChecksum writes the checksum line, last in the header b holds so far, of a file that
// records its change: it covers what b holds and the closing fence and body still to come.
func writeChecksum(b *strings.Builder, p *Plan) {
	if !p.Created && p.Action == "" {
		return
	}
	sum := crc32.Update(0, Castagnoli, BytesOf(b.String()))
	sum = crc32.Update(sum, Castagnoli, BytesOf(HeaderFence))
	sum = crc32.Update(sum, Castagnoli, BytesOf(p.Content))
	var scratch [len(HdrChecksum) + 4 + CrcEntryDigits + 2]byte
	out := append(scratch[:0], HdrChecksum+`: "`...)
	out = AppendHex32(out, sum)
	b.Write(append(out, "\"\n"...))
}

// ChangeCheck is the checksum line DecodePlan found, where it stands in the file.
type ChangeCheck struct {
	start, end int
	value      string
}

// Found records the checksum line value that starts in raw where rest does minus lineLen.
func (c *ChangeCheck) Found(raw, rest string, lineLen int, value string) {
	c.end = len(raw) - len(rest)
	c.start = c.end - lineLen
	c.value = value
}

// Holds reports whether raw matches the checksum line found in it; false without one.
func (c *ChangeCheck) Holds(raw string) bool {
	if c.value == "" {
		return false
	}
	sum := crc32.Update(0, Castagnoli, BytesOf(raw[:c.start]))
	sum = crc32.Update(sum, Castagnoli, BytesOf(raw[c.end:]))
	var scratch [2 + CrcEntryDigits]byte
	out := append(scratch[:0], '"')
	out = AppendHex32(out, sum)
	return string(append(out, '"')) == c.value
}

// AppendHex32 appends v in 8 hex digits.
func AppendHex32(dst []byte, v uint32) []byte {
	const hex = "0123456789abcdef"
	for shift := 28; shift >= 0; shift -= 4 {
		dst = append(dst, hex[v>>shift&0xf])
	}
	return dst
}

// BytesOf is s as bytes, for functions that only read them.
func BytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

const (
	EntrySumDigits    = 2 * sha256.Size // hex digits of an entry's SHA-256
	CrcEntryDigits    = 8               // hex digits of the CRC-32C naming an entry of the release before
	LegacyEntryDigits = 12              // hex digits of the SHA-256 in an entry name of earlier releases
)

var Castagnoli = crc32.MakeTable(crc32.Castagnoli)

// DiffPlans renders what changed from a to b: one `field: "old" -> "new"` line per changed
// header field (title, status, author), then a unified diff of the bodies with context
// lines of context, headed by ---/+++ lines naming fromLabel and toLabel when those are not
// empty. Equal plans give "".
func DiffPlans(a, b *Plan, fromLabel, toLabel string, context int) string {
	var out strings.Builder
	for _, f := range [...]struct{ key, old, new string }{
		{"title", a.Title, b.Title}, {"status", a.Status, b.Status}, {"author", a.Author, b.Author},
	} {
		if f.old != f.new {
			out.WriteString(f.key)
			out.WriteString(": ")
			writeJSONString(&out, f.old)
			out.WriteString(" -> ")
			writeJSONString(&out, f.new)
			out.WriteByte('\n')
		}
	}
	if a.Content != b.Content {
		if fromLabel != "" || toLabel != "" {
			out.WriteString("--- " + fromLabel + "\n+++ " + toLabel + "\n")
		}
		out.WriteString(diff.Unified(a.Content, b.Content, context))
	}
	return out.String()
}
