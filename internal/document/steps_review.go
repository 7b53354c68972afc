package document

import "strings"

// A step whose text ends with "(review)" is done only once someone other than who did it
// completes it: a person, or an agent of another name than the doer's, never another run of
// the doer ("worker·2" does not review "worker", nor "worker" "worker·2": SameAgent). Its holder's completion leaves it in_progress, held by nobody, its line
// ending with " (done by @name, awaiting review)" after the evidence; another agent or a
// person (the board, planctl) then completes it, which writes " (reviewed by @name)" in
// place of that mark. The state names stay the five the file format has.

const (
	awaitingMarkEnd = ", awaiting review)"
	awaitingMarkBy  = " (done by @"
	awaitingNobody  = " (awaiting review)"
	reviewedMark    = " (reviewed"
)

// RunSep separates an agent's name from the number of a parallel run of it ("worker·2"); no
// agent's own name holds it (the middleware escapes it).
const RunSep = "·"

// SameAgent reports whether the holder names a and b are one agent: the same name, or runs
// of one agent ("worker", "worker·2", "worker·3"). "" is nobody, the same as no one.
func SameAgent(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	a, _, _ = strings.Cut(a, RunSep)
	b, _, _ = strings.Cut(b, RunSep)
	return a == b
}

// awaitingMark is what a completion of a step asking for review by by appends to its line.
func awaitingMark(by string) string {
	if by == "" {
		return awaitingNobody
	}
	return awaitingMarkBy + by + awaitingMarkEnd
}

// reviewDoneMark is what the review's completion by by appends in place of the mark.
func reviewDoneMark(by string) string {
	if by == "" {
		return reviewedMark + ")"
	}
	return reviewedMark + " by @" + by + ")"
}

// cutReviewedMark is text without the mark of a completed review it ends with, as
// reviewDoneMark writes it; text itself when it ends with none.
func cutReviewedMark(text string) string {
	if t, ok := strings.CutSuffix(text, reviewDoneMark("")); ok {
		return t
	}
	i := strings.LastIndex(text, reviewedMark+" by @")
	if i < 0 || !strings.HasSuffix(text, ")") || !ValidHolder(text[i+len(reviewedMark+" by @"):len(text)-1]) {
		return text
	}
	return text[:i]
}

// reviewState is what the end of a step's text says of its review.
type reviewState struct {
	awaiting bool   // its completion awaits review
	doneBy   string // who completed it into review; "" for nobody known
}

// cutReviewMark is text without the awaiting-review mark it ends with, and what the mark
// says; text itself and a zero reviewState when it ends with none.
func cutReviewMark(text string) (string, reviewState) {
	if t, ok := strings.CutSuffix(text, awaitingNobody); ok {
		return t, reviewState{awaiting: true}
	}
	if !strings.HasSuffix(text, awaitingMarkEnd) {
		return text, reviewState{}
	}
	i := strings.LastIndex(text, awaitingMarkBy)
	if i < 0 {
		return text, reviewState{}
	}
	name := text[i+len(awaitingMarkBy) : len(text)-len(awaitingMarkEnd)]
	if !ValidHolder(name) {
		return text, reviewState{}
	}
	return text[:i], reviewState{awaiting: true, doneBy: name}
}

// reviewOf is what a step's line says of its review, for a step in progress only.
func reviewOf(s Step) reviewState {
	if s.State != StepInProgress {
		return reviewState{}
	}
	_, r := cutReviewMark(s.Text)
	return r
}
