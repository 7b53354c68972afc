package document

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var commentTime = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

// commentedPlan is a plan of three steps with one comment on step 2 and one on the plan.
func commentedPlan(t *testing.T) *Plan {
	t.Helper()
	p := &Plan{Name: "p", Revision: 4, UpdatedAt: commentTime, Title: "P", Status: "draft",
		Content: "- [ ] Build\n- [ ] Deploy\n- [ ] Tell people\n"}
	_, err := NewComment(p, 2, "Roll back\nwhen the deploy fails", "alice", p.Revision, commentTime)
	require.NoError(t, err)
	_, err = NewComment(p, 0, "Say who is on call", "bob", p.Revision, commentTime.Add(time.Minute))
	require.NoError(t, err)
	return p
}

// A person reading the plan file sees each comment as a few lines of its header: who said
// what on which step at which revision, and who answered or closed it; the file reads back
// to the same comments.
func TestCommentsAreReadableHeaderLinesThatReadBack(t *testing.T) {
	p := commentedPlan(t)
	answered := commentTime.Add(time.Hour)
	p.Comments[0].AnsweredAt, p.Comments[0].AnsweredBy, p.Comments[0].Answer = &answered, "worker", "Roll back on failure"
	p.Comments[1].ResolvedAt, p.Comments[1].ResolvedBy = &answered, "bob"
	file := EncodePlan(p)
	for _, line := range []string{
		`comment: "c1 on step 2, revision 4, 2026-11-27T10:00:00Z, alice"`,
		`comment_text: "Roll back when the deploy fails"`,
		`comment_answered: "2026-11-27T11:00:00Z, worker"`,
		`comment_answer: "Roll back on failure"`,
		`comment: "c2 on the plan, revision 4, 2026-11-27T10:01:00Z, bob"`,
		`comment_resolved: "2026-11-27T11:00:00Z, bob"`,
	} {
		assert.Contains(t, file, line+"\n")
	}
	back, err := DecodeSealed("p", file)
	require.NoError(t, err)
	assert.Equal(t, p.Comments, back.Comments)
	again, err := DecodeSealed("p", EncodePlan(back))
	require.NoError(t, err)
	assert.True(t, SamePlan(back, again), "the same plan, comments and all")
	again.Comments[0].Text = "edited"
	assert.False(t, SamePlan(back, again), "plans whose comments differ differ")
	assert.True(t, Sealed(back), "comments are a person's: the plan is governed")
}

// A file written before comments existed, and one whose comment lines do not read, has no
// comments; the plan reads all the same.
func TestAFileWithoutReadableCommentsHasNone(t *testing.T) {
	old := "---\ntitle: \"P\"\nstatus: \"draft\"\nauthor: \"a\"\nrevision: 3\nupdated_at: \"2026-11-27T10:00:00Z\"\n---\n- [ ] Build\n"
	p, err := DecodePlan("p", old)
	require.NoError(t, err)
	assert.Nil(t, p.Comments)
	assert.NotContains(t, SealedHeader(p), "comments", "a plan without comments seals as it did")

	bad := strings.Replace(old, "revision: 3\n", "revision: 3\ncomment: \"x1 on step 1, revision 3, 2026-11-27T10:00:00Z, a\"\ncomment_text: \"hi\"\n"+
		"comment: \"c2 on step 1, revision 3, 2026-11-27T10:00:00Z, a\"\n", 1)
	p, err = DecodePlan("p", bad)
	require.NoError(t, err)
	assert.Nil(t, p.Comments, "a bad ID, and a comment without text, are no comments")
}

// The header seal covers every comment line: adding, editing, answering or removing one
// changes what is sealed.
func TestTheHeaderSealCoversComments(t *testing.T) {
	p := commentedPlan(t)
	sealed := SealedHeader(p)
	edits := map[string]func(*Plan){
		"added":    func(q *Plan) { _, _ = NewComment(q, 1, "more", "mallory", 4, commentTime) },
		"edited":   func(q *Plan) { q.Comments[0].Text = "never mind" },
		"answered": func(q *Plan) { AnswerByNote(q, 2, "done", "worker", commentTime) },
		"removed":  func(q *Plan) { q.Comments = q.Comments[1:] },
	}
	for name, edit := range edits {
		q := CopyPlan(p)
		edit(q)
		assert.NotEqual(t, sealed, SealedHeader(q), name)
	}
	assert.Equal(t, sealed, SealedHeader(p), "no edit changed the original's comments")
}

// A comment is plain text of bounded size on a step the plan has; a plan keeps a bounded
// number, making room by dropping the oldest closed one.
func TestCommentsAreBoundedPlainText(t *testing.T) {
	p := &Plan{Name: "p", Content: "- [ ] Build\n"}
	c, err := NewComment(p, 1, "\x1b[31mred\u202e\tand\x00 bold\r\n", "alice", 1, commentTime)
	require.NoError(t, err)
	assert.Equal(t, "[31mred and bold", c.Text, "control and bidirectional characters are stripped")

	_, err = NewComment(p, 1, " \n\t", "alice", 1, commentTime)
	assert.Equal(t, CodeInvalidArgument, CodeOf(err))
	_, err = NewComment(p, 1, strings.Repeat("x", api.MaxCommentBytes+1), "alice", 1, commentTime)
	assert.Equal(t, CodeTooLarge, CodeOf(err))
	_, err = NewComment(p, 2, "no such step", "alice", 1, commentTime)
	assert.Equal(t, CodeInvalidArgument, CodeOf(err))
	_, err = NewComment(p, -1, "no such step", "alice", 1, commentTime)
	assert.Equal(t, CodeInvalidArgument, CodeOf(err))

	for len(p.Comments) < api.MaxComments {
		_, err = NewComment(p, 0, "more", "alice", 1, commentTime)
		require.NoError(t, err)
	}
	_, err = NewComment(p, 0, "one too many", "alice", 1, commentTime)
	assert.Equal(t, CodeTooLarge, CodeOf(err), "every kept comment is open")
	require.NoError(t, ResolveComments(p, []string{"c2"}, "alice", commentTime))
	c, err = NewComment(p, 0, "room now", "alice", 1, commentTime)
	require.NoError(t, err)
	assert.Equal(t, "c"+strconv.Itoa(api.MaxComments+1), c.ID, "IDs are never reused")
	assert.Len(t, p.Comments, api.MaxComments)
	for _, k := range p.Comments {
		assert.NotEqual(t, "c2", k.ID, "the closed comment made room")
	}
	assert.Equal(t, CodeNotFound, CodeOf(ResolveComments(p, []string{"c99"}, "alice", commentTime)))

	long := &Plan{Name: "p", Content: "- [ ] Build\n"}
	for {
		if _, err = NewComment(long, 1, strings.Repeat(`"`, api.MaxCommentBytes), "alice", 1, commentTime); err != nil {
			break
		}
	}
	assert.Equal(t, CodeTooLarge, CodeOf(err), "long comments fill the header before their count does")
	assert.Less(t, len(long.Comments), api.MaxComments)
	assert.LessOrEqual(t, len(EncodePlan(long))-len(long.Content), maxCommentsBytes+1024)
}

// An agent's rewrite answers the comments on the steps whose text it changed, and those on
// the plan; a host's rewrite answers none, and neither does one that changes nothing.
func TestAnAgentsRewriteOfAStepAnswersItsComments(t *testing.T) {
	cur := commentedPlan(t)
	_, err := NewComment(cur, 1, "Which build?", "alice", 4, commentTime)
	require.NoError(t, err)
	rewrite := func(ctx context.Context, body string) *Plan {
		next := CopyPlan(cur)
		next.Content, next.UpdatedAt = body, commentTime.Add(time.Hour)
		SettleComments(ctx, ActionWrite, cur, next)
		return next
	}
	agent := WithAgentActor(context.Background(), "planner")
	next := rewrite(agent, "- [ ] Build\n- [ ] Deploy, rolling back on failure\n- [ ] Tell people\n")
	byID := map[string]Comment{}
	for _, c := range next.Comments {
		byID[c.ID] = c
	}
	assert.Equal(t, "planner", byID["c1"].AnsweredBy)
	assert.Equal(t, "Deploy, rolling back on failure", byID["c1"].Answer)
	assert.False(t, byID["c2"].Open(), "a change of the body answers a comment on the plan")
	assert.True(t, byID["c3"].Open(), "step 1 did not change")
	assert.Len(t, OpenCommentsOf(cur), 3, "the plan read is left as it was")

	next = rewrite(WithActor(context.Background(), "alice"), "- [ ] Build\n- [ ] Deploy twice\n- [ ] Tell people\n")
	assert.Len(t, OpenCommentsOf(next), 3, "a person's rewrite answers nothing")

	AnswerByNote(next, 1, "the release build", "worker", commentTime)
	assert.Len(t, OpenCommentsOf(next), 2)
	assert.Equal(t, CodeCommentsOpen, CodeOf(RefuseOpenComments(next)))
	var e *Error
	require.ErrorAs(t, RefuseOpenComments(next), &e)
	assert.Len(t, e.Comments, 2)
}
