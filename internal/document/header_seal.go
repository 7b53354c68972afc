package document

import (
	"strconv"
	"strings"
)

// hdrSealed is the header key of Plan.HeaderSeal: the seal, under the storage's key, of
// what a person set or decided in the header (SealedHeader). Title, status and author stay
// free text outside it; the approval has a seal of its own (approval.go).
const hdrSealed = "sealed"

// SealedHeader is the text the header seal of p covers: its name and revision, the
// approval requirement, the plan budget, the checksum of the file it replaced (the root of
// its history's chain), the run waiting for a decision and the last rejection with its
// feedback. Each value is quoted, so no two headers share a text. Only the Store computes
// the seal, which needs the key; this package only reads and writes the line.
func SealedHeader(p *Plan) string {
	var b strings.Builder
	b.Grow(160 + len(p.Budget) + len(p.Replaces))
	b.WriteString("plan header\n")
	b.WriteString(strconv.Quote(p.Name))
	b.WriteByte('\n')
	b.WriteString(strconv.FormatInt(p.Revision, 10))
	b.WriteByte('\n')
	b.WriteString(strconv.FormatBool(p.RequiresApproval))
	b.WriteByte('\n')
	b.WriteString(strconv.Quote(p.Budget))
	b.WriteByte('\n')
	b.WriteString(strconv.Quote(p.Replaces))
	b.WriteByte('\n')
	if w := p.Waiting; w != nil {
		b.WriteString(strconv.Quote(formatMark(w.Revision, w.Since, w.Agent)))
	}
	b.WriteByte('\n')
	if r := p.Rejection; r != nil {
		b.WriteString(strconv.Quote(formatMark(r.Revision, r.At, r.By)))
		b.WriteByte('\n')
		b.WriteString(strconv.Quote(r.Feedback))
	}
	if len(p.Comments) > 0 { // people's comments (comments.go); a plan without any seals as before
		b.WriteString("\ncomments\n" + sealedComments(p.Comments))
	}
	return b.String()
}

// writeHeaderSeal appends the header seal line of p, when it has one.
func writeHeaderSeal(b *strings.Builder, p *Plan) {
	if p.HeaderSeal != "" {
		WriteHeaderString(b, hdrSealed, p.HeaderSeal)
	}
}

// setHeaderSeal reads the header seal line, and reports whether key was one. A malformed
// value is no seal, which the Store reads as unsealed.
func setHeaderSeal(p *Plan, key, value string) bool {
	if key != hdrSealed {
		return false
	}
	if DecodeJSONString(value, &p.HeaderSeal) != nil {
		p.HeaderSeal = ""
	}
	return true
}

// Sealed reports whether p carries anything the header seal covers that a person set or
// decided: the approval requirement, a plan budget, a waiting run, a rejection, people's
// comments, or an approval. The Store seals, and marks (rollback_mark.go in the engine), every plan that
// ever carried one.
func Sealed(p *Plan) bool {
	return p != nil && (p.Approval != nil || p.RequiresApproval || p.Budget != "" || p.Waiting != nil || p.Rejection != nil || len(p.Comments) > 0 || p.HeaderSeal != "")
}
