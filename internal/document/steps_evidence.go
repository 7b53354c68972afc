package document

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A completion may carry evidence: what shows the step is done (a command and its exit code,
// test counts, a link, an artifact's hash). The Store writes it at the end of the step's line,
// after any note, as " — evidence: " and the text, so it is kept with the step in the plan
// itself, in every kept revision, and read back by ParseSteps into Step.Evidence. A step
// move writes it, so an approval is kept as it is for a note.

// maxEvidenceLen is the longest evidence, in bytes once trimmed and folded, a move writes.
const maxEvidenceLen = 1000

// FieldEvidence names StepMove.Evidence in errors.
const FieldEvidence = "Evidence"

// FoldEvidence is evidence as one paragraph on one line: trimmed, and every run of white
// space that holds a line break written as one space.
func FoldEvidence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		j := i
		brk := false
		for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n') {
			brk = brk || s[j] == '\r' || s[j] == '\n'
			j++
		}
		if j > i {
			if brk {
				b.WriteByte(' ')
			} else {
				b.WriteString(s[i:j])
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// CheckEvidence is the one check of evidence once folded: valid UTF-8 of at most
// maxEvidenceLen bytes, no control characters, and not containing the separator that
// starts it, a cost's or an observation's, so it reads back whole and never as a cost or
// as what the host observed.
func CheckEvidence(e string) error {
	switch {
	case len(e) > maxEvidenceLen:
		return Fail(Error{Code: CodeInvalidArgument, Reason: ReasonTooLong, Field: FieldEvidence, Size: int64(len(e)), Limit: maxEvidenceLen})
	case !utf8.ValidString(e):
		return Fail(Error{Code: CodeInvalidArgument, Reason: ReasonNotUTF8, Field: FieldEvidence})
	case strings.Contains(e, evidenceSep) || strings.Contains(e, costSep) || strings.Contains(e, observedSep) || strings.IndexFunc(e, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) >= 0:
		return Fail(Error{Code: CodeInvalidArgument, Reason: reasonEvidenceForm, Field: FieldEvidence})
	}
	if _, tag := SplitHolder(e); tag != "" {
		return Fail(Error{Code: CodeInvalidArgument, Reason: reasonNoteTag, Field: FieldEvidence, Value: e})
	}
	return nil
}

// evidenceOf reads the evidence a step's text ends with (before a holder's tag and a review
// mark, and without the mark of the review that followed it); "" for none.
func evidenceOf(text string) string {
	i := strings.LastIndex(text, evidenceSep)
	if i < 0 {
		return ""
	}
	rest := text[i+len(evidenceSep):]
	rest, _ = SplitHolder(rest)
	rest, _ = cutReviewMark(rest)
	return cutReviewedMark(rest)
}
