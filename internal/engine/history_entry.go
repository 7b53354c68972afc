package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/einoplan/plan/internal/document"
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
