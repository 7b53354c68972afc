package document

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The open comments written as header lines read back whole, among lines of other keys; the
// answered ones are not written, and neither is anything when none is open.
func TestOpenCommentsReadBackFromAHeader(t *testing.T) {
	p := commentedPlan(t)
	AnswerByNote(p, 2, "done", "worker", commentTime)
	var b strings.Builder
	b.WriteString(HeaderFence + "revision: 7\n")
	WriteOpenComments(&b, p.Comments)
	b.WriteString("seal: \"x\"\n" + HeaderFence)

	got := CommentsOfHeader(b.String())
	assert.Equal(t, OpenCommentsOf(p), got)
	assert.Len(t, got, 1)
	assert.Equal(t, OpenCommentsText(p.Comments), OpenCommentsText(got))

	assert.NoError(t, ResolveComments(p, []string{"c2"}, "bob", commentTime))
	var none strings.Builder
	WriteOpenComments(&none, p.Comments)
	assert.Empty(t, none.String())
	assert.Empty(t, OpenCommentsText(p.Comments))
	assert.Nil(t, CommentsOfHeader("no header"))
}
