package document

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/einoplan/plan/api"
)

// A step in progress can be held by one agent: its line then ends with " (@holder)", e.g.
// "- [~] Build the API (@worker-2)", so people read who works on what in the plan itself.
// The Store writes the tag when an agent moves a step to in_progress, and refuses moves of a
// held step by anyone else (CodeStepHeld) unless they take it over.

// MaxHolderLen bounds a holder's name (api.MaxHolderLen).
const MaxHolderLen = api.MaxHolderLen

// holderTag is what a hold appends to a step's line.
func holderTag(holder string) string { return " (@" + holder + ")" }

// nobodyTag ends the line of a step in progress that nobody holds when its text would
// otherwise end like a holder's tag: written by a person or a rewrite, it is no hold.
const nobodyTag = " (@)"

// holdTag is what the Store appends to the line of a step it moves to in_progress for by,
// whose line so far is line: by's tag, or for nobody the mark that keeps the text's own
// ending from reading as a hold (nothing when it needs none).
func holdTag(by, line string) string {
	if by != "" {
		return holderTag(by)
	}
	if _, h := SplitHolder(strings.TrimPrefix(line, "]")); h != "" {
		return nobodyTag
	}
	return ""
}

// withoutHoldTag is the line after a step's marker without what a hold appended to it.
func withoutHoldTag(tail string) string {
	if t, ok := strings.CutSuffix(tail, nobodyTag); ok {
		return t
	}
	t, _ := SplitHolder(tail)
	return t
}

// HolderName is the name an agent holds steps under, one-to-one: parentheses, control
// characters (spaces stay), invalid UTF-8 and "%" itself are written as %XX (so "worker 1",
// "worker(1" and "worker-1" stay three holders), and a name longer than 64 bytes is cut to
// 47 bytes plus "~" and 16 hex digits of its SHA-256, so names that share their first 64
// bytes stay apart. "" stays "" (nobody: the step is in progress but not held).
func HolderName(agent string) string {
	var b strings.Builder
	for i := 0; i < len(agent); {
		r, size := utf8.DecodeRuneInString(agent[i:])
		if r < ' ' || r == '(' || r == ')' || r == '%' || r == 0x7f || (r == utf8.RuneError && size == 1) {
			for _, c := range []byte(agent[i : i+size]) {
				b.WriteString(fmt.Sprintf("%%%02X", c))
			}
		} else {
			b.WriteString(agent[i : i+size])
		}
		i += size
	}
	name := b.String()
	if len(name) > MaxHolderLen {
		name = CutKeepingHash(name, MaxHolderLen)
	}
	return name
}

// CutKeepingHash cuts s to n bytes or fewer, the last 17 of them "~" and a hash of all of s,
// so two strings that share their first bytes stay apart.
func CutKeepingHash(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return TruncateUTF8(s, n-17) + "~" + hex.EncodeToString(sum[:8])
}

// ValidHolder reports whether name is one HolderName gives (api.ValidHolder).
func ValidHolder(name string) bool { return api.ValidHolder(name) }

// SplitHolder returns a step text without its trailing holder tag, and the holder it names
// (api.SplitHolder).
func SplitHolder(text string) (rest, holder string) { return api.SplitHolder(text) }
