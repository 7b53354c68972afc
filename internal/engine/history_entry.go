package engine

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/einoplan/plan/internal/document"
)

// appendEntrySum appends the SHA-256 of raw in entrySumDigits hex digits.
func appendEntrySum(dst []byte, raw string) []byte {
	sum := sha256.Sum256(document.BytesOf(raw)) // read in place: no copy of the file
	return hex.AppendEncode(dst, sum[:])
}

// entrySum is appendEntrySum of raw as a string.
func entrySum(raw string) string {
	var scratch [document.EntrySumDigits]byte
	return string(appendEntrySum(scratch[:0], raw))
}

// listedEntry is one entry file found in a plan's history folder.
type listedEntry struct {
	rev    int64
	sum    string // entrySumDigits hex digits; crcEntryDigits or legacyEntryDigits in an entry of an earlier release
	legacy bool
	path   string
	size   int64
}

// knownEntries is one plan's history entries as far as this process knows them.
type knownEntries struct {
	entries []listedEntry // oldest first, none past through
	through int64         // the plan's revision when entries were last complete
	prunes  int           // prunes that went by entries since the last listing
}
