package document

import (
	"sort"
	"strconv"
	"strings"
)

// A move that keeps a step in progress (its holder's renewal, a takeover, a release) may
// carry a note; that note replaces the one the previous such move wrote, so a step renewed
// any number of times is as long as after one renewal, and an approved plan never grows by
// renewals. Which bytes that note is cannot be read from the line (a step's own text may
// contain " — " too), so the Store records it in the header: renewal_notes "3:45" says the
// text of step 3, before its holder's tag, ends with a 45-byte note (" — " and the note) that
// the next such move replaces. The record is dropped when the step leaves in_progress or its
// line changes by anything but a move, and on an approval (a note a person approved is theirs
// now); an approval's seal covers it, so an edited record voids the approval.

// hdrRenewalNotes is the header key of a plan's renewal notes record.
const hdrRenewalNotes = "renewal_notes"

// parseRenewalNotes reads a record "3:45,5:12": step number to the note's length in bytes.
// An entry it cannot read, or that no note could have, is left out.
func parseRenewalNotes(s string) map[int]int {
	var notes map[int]int
	for _, part := range strings.Split(s, ",") {
		num, size, ok := strings.Cut(part, ":")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(num)
		l, lerr := strconv.Atoi(size)
		if err != nil || lerr != nil || n < 1 || l <= len(StepNoteSep) || l > len(StepNoteSep)+MaxStepNoteLen {
			continue
		}
		if notes == nil {
			notes = map[int]int{}
		}
		notes[n] = l
	}
	return notes
}

// formatRenewalNotes writes a record in the one form parseRenewalNotes reads, by step.
func formatRenewalNotes(notes map[int]int) string {
	nums := make([]int, 0, len(notes))
	for n := range notes {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	parts := make([]string, len(nums))
	for i, n := range nums {
		parts[i] = strconv.Itoa(n) + ":" + strconv.Itoa(notes[n])
	}
	return strings.Join(parts, ",")
}

// WithRenewalNote is record notes with step n's note size bytes long; 0 drops it.
func WithRenewalNote(notes string, n, size int) string {
	m := parseRenewalNotes(notes)
	if size == 0 && m[n] == 0 {
		return notes
	}
	if m == nil {
		m = map[int]int{}
	}
	if size == 0 {
		delete(m, n)
	} else {
		m[n] = size
	}
	return formatRenewalNotes(m)
}

// RenewalNoteSize is the size of the note a move may replace at the end of a step's text,
// "—" and all, as a renewal_notes record says; 0 for none.
func RenewalNoteSize(notes string, n int) int {
	if notes == "" {
		return 0
	}
	return parseRenewalNotes(notes)[n]
}

// withoutRenewalNote is tail (a step's line after its marker, without its holder's tag) less
// the size-byte note at its end, when it ends with one; else tail.
func withoutRenewalNote(tail string, size int) string {
	if size <= 0 || size >= len(tail) || !strings.HasPrefix(tail[len(tail)-size:], StepNoteSep) {
		return tail
	}
	return tail[:len(tail)-size]
}

// SettleRenewalNotes keeps of next's renewal notes record only what still names a note a
// move wrote: a step move sets its own step's entry (moveStep); an approval drops them all;
// any other change keeps an entry while the step's state and text stay as they were.
func SettleRenewalNotes(action Action, cur, next *Plan) {
	if next.RenewalNotes == "" {
		return
	}
	if cur == nil || action == ActionApprove {
		next.RenewalNotes = ""
		return
	}
	if action == ActionStep || next.Content == cur.Content {
		return
	}
	was, now := StepsOf(cur.Content), StepsOf(next.Content)
	notes := parseRenewalNotes(next.RenewalNotes)
	for n := range notes {
		if n > len(was) || n > len(now) || was[n-1].State != now[n-1].State || was[n-1].Text != now[n-1].Text || now[n-1].State != StepInProgress {
			delete(notes, n)
		}
	}
	next.RenewalNotes = formatRenewalNotes(notes)
}
