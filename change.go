package plan

import (
	"hash/crc32"
	"strings"
	"unsafe"
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
	hdrReplaces  = "replaces"
	hdrChecksum  = "checksum"
	changeCreate = "create"
)

// writeChange writes the lines that record the change that made p, when known.
func writeChange(b *strings.Builder, p *Plan) {
	switch {
	case p.created:
		writeHeaderString(b, hdrChange, changeCreate)
	case p.action != "":
		writeHeaderString(b, hdrChange, string(p.action))
	default:
		return
	}
	if p.changedBy != "" {
		writeHeaderString(b, hdrChangedBy, p.changedBy)
	}
	if p.replaces != "" {
		writeHeaderString(b, hdrReplaces, p.replaces)
	}
}

// writeChecksum writes the checksum line, last in the header b holds so far, of a file that
// records its change: it covers what b holds and the closing fence and body still to come.
func writeChecksum(b *strings.Builder, p *Plan) {
	if !p.created && p.action == "" {
		return
	}
	sum := crc32.Update(0, castagnoli, bytesOf(b.String()))
	sum = crc32.Update(sum, castagnoli, bytesOf(headerFence))
	sum = crc32.Update(sum, castagnoli, bytesOf(p.Content))
	var scratch [len(hdrChecksum) + 4 + crcEntryDigits + 2]byte
	out := append(scratch[:0], hdrChecksum+`: "`...)
	out = appendHex32(out, sum)
	b.Write(append(out, "\"\n"...))
}

// changeCheck is the checksum line DecodePlan found, where it stands in the file.
type changeCheck struct {
	start, end int
	value      string
}

// found records the checksum line value that starts in raw where rest does minus lineLen.
func (c *changeCheck) found(raw, rest string, lineLen int, value string) {
	c.end = len(raw) - len(rest)
	c.start = c.end - lineLen
	c.value = value
}

// holds reports whether raw matches the checksum line found in it; false without one.
func (c *changeCheck) holds(raw string) bool {
	if c.value == "" {
		return false
	}
	sum := crc32.Update(0, castagnoli, bytesOf(raw[:c.start]))
	sum = crc32.Update(sum, castagnoli, bytesOf(raw[c.end:]))
	var scratch [2 + crcEntryDigits]byte
	out := append(scratch[:0], '"')
	out = appendHex32(out, sum)
	return string(append(out, '"')) == c.value
}

// appendHex32 appends v in 8 hex digits.
func appendHex32(dst []byte, v uint32) []byte {
	const hex = "0123456789abcdef"
	for shift := 28; shift >= 0; shift -= 4 {
		dst = append(dst, hex[v>>shift&0xf])
	}
	return dst
}

// bytesOf is s as bytes, for functions that only read them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
