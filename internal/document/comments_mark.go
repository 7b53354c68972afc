package document

import (
	"strings"

	"github.com/einoplan/plan/api"
)

// The open comments of a governed plan are also kept in its mark (rollback_mark.go in the
// engine), sealed there, so a comment deleted from the plan file by hand, which breaks the
// file's header seal, still blocks a request for approval. The mark keeps them as the plan
// file does (writeComments' lines), open ones only, so it stays within maxCommentsBytes.

// WriteOpenComments appends the header lines of the open comments of cs.
func WriteOpenComments(b *strings.Builder, cs []Comment) {
	writeComments(b, &Plan{Comments: api.OpenComments(cs)})
}

// OpenCommentsText is what a seal covers of the open comments of cs: their header lines,
// "" when none is open.
func OpenCommentsText(cs []Comment) string {
	return sealedComments(api.OpenComments(cs))
}

// CommentsOfHeader reads the comments in the header of raw (a file that opens with
// HeaderFence), as a plan file's are read; lines of other keys are skipped.
func CommentsOfHeader(raw string) []Comment {
	rest, ok := strings.CutPrefix(raw, HeaderFence)
	if !ok {
		return nil
	}
	p := &Plan{}
	for line := range strings.Lines(rest) {
		line = strings.TrimSuffix(line, "\n")
		if line == "---" {
			break
		}
		if key, value, ok := strings.Cut(line, ": "); ok {
			setCommentHeader(p, key, value)
		}
	}
	settleComments(p)
	return p.Comments
}
