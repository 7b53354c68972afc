package document

import "strings"

// reviewMove is what a completion does to a step asking for review.
type reviewMove int

const (
	reviewNone reviewMove = iota
	ReviewInto            // its doer completes it: it stays in_progress, awaiting review
	ReviewDone            // another agent or a person completes the review
)

// readProof fills the fields of s that its line's evidence, "(review)" and review mark give.
func readProof(s *Step) {
	s.Evidence = evidenceOf(s.Text)
	if strings.Contains(s.Text, costSep) {
		s.Cost = costOf(s.Text)
	}
	if strings.Contains(s.Text, "(review)") || strings.Contains(s.Text, "(budget ") {
		var b Budget
		if s.Review, b = stepAsks(s.Text); !b.isZero() {
			s.Budget = &b
		}
	}
	r := reviewOf(*s)
	s.AwaitingReview, s.DoneBy = r.awaiting, r.doneBy
}
