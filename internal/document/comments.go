package document

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan/api"
)

// Comment is a person's comment on a step, declared in package api.
type Comment = api.Comment

// People's comments are kept in the plan file's header, each as a group of lines that a
// person reads top to bottom (decisions.go has the other records of people):
//
//	comment: "c1 on step 3, revision 4, 2026-11-27T10:00:00Z, alice"   who commented on what, when
//	comment_text: "Roll back when the deploy fails"                     what they said
//	comment_answered: "2026-11-27T10:20:00Z, worker"                   an agent answered it then
//	comment_answer: "step 3 now reads …"                                 with this
//	comment_resolved: "2026-11-27T10:30:00Z, bob"                      a person closed it then
//
// "on the plan" stands for step 0. The lines after a comment line belong to it; a group
// that does not read (a bad comment line, no text) is no comment. An older release ignores
// these keys, and a file without them has no comments. They are under the header seal
// (SealedHeader), so a comment added, edited, answered or removed by hand reads as none.
const (
	hdrComment         = "comment"
	hdrCommentText     = "comment_text"
	hdrCommentAnswered = "comment_answered"
	hdrCommentAnswer   = "comment_answer"
	hdrCommentResolved = "comment_resolved"
)

// Reasons of comments: a request for approval while comments are open; a comment over the
// count a plan keeps; a resolve of a comment the plan does not have; an agent commenting.
const (
	ReasonCommentsOpen   = "comments_open"
	reasonCommentsFull   = "comments_full"
	reasonCommentUnknown = "comment_unknown"
	reasonCommentByAgent = "comment_by_agent"
)

// maxAnswerBytes bounds an answer as kept: the note or the step's new text, cut.
// maxCommentsBytes bounds the header lines of a plan's comments, with room for an answer to
// each, so that a plan's header stays within what the Store reads of it.
const (
	maxAnswerBytes   = 200
	maxCommentsBytes = 6 << 10
)

// writeComments appends the header lines of p's comments.
func writeComments(b *strings.Builder, p *Plan) {
	for _, c := range p.Comments {
		WriteHeaderString(b, hdrComment, commentHead(c))
		WriteHeaderString(b, hdrCommentText, c.Text)
		if c.AnsweredAt != nil {
			WriteHeaderString(b, hdrCommentAnswered, commentMark(*c.AnsweredAt, c.AnsweredBy))
			if c.Answer != "" {
				WriteHeaderString(b, hdrCommentAnswer, c.Answer)
			}
		}
		if c.ResolvedAt != nil {
			WriteHeaderString(b, hdrCommentResolved, commentMark(*c.ResolvedAt, c.ResolvedBy))
		}
	}
}

// commentHead is the value of a comment line: "c1 on step 3, revision 4, <time>, alice".
func commentHead(c Comment) string {
	on := "on the plan"
	if c.Step > 0 {
		on = "on step " + strconv.Itoa(c.Step)
	}
	return c.ID + " " + on + ", revision " + strconv.FormatInt(c.Revision, 10) + ", " + commentMark(c.At, c.Author)
}

// commentMark is "<RFC 3339 time>, <who>".
func commentMark(at time.Time, who string) string {
	return at.UTC().Format(time.RFC3339Nano) + ", " + who
}

// parseCommentMark reads commentMark's text.
func parseCommentMark(v string) (time.Time, string, bool) {
	at, who, ok := strings.Cut(v, ", ")
	t, err := time.Parse(time.RFC3339Nano, at)
	if !ok || err != nil || t.UTC().Year() < 0 || t.UTC().Year() > 9999 {
		return time.Time{}, "", false
	}
	return t.UTC(), who, true
}

// parseCommentHead reads commentHead's text.
func parseCommentHead(v string) (Comment, bool) {
	parts := strings.SplitN(v, ", ", 3)
	if len(parts) < 3 {
		return Comment{}, false
	}
	id, on, _ := strings.Cut(parts[0], " ")
	step := 0
	if on != "on the plan" {
		n, ok := strings.CutPrefix(on, "on step ")
		s, err := strconv.Atoi(n)
		if !ok || err != nil || s < 1 || strconv.Itoa(s) != n {
			return Comment{}, false
		}
		step = s
	}
	rev, err := strconv.ParseInt(strings.TrimPrefix(parts[1], "revision "), 10, 64)
	at, who, ok := parseCommentMark(parts[2])
	if !validCommentID(id) || !strings.HasPrefix(parts[1], "revision ") || err != nil || rev < 0 || !ok {
		return Comment{}, false
	}
	return Comment{ID: id, Step: step, Revision: rev, At: at, Author: who}, true
}

// validCommentID reports whether id is "c" and a number from 1, as the Store names them.
func validCommentID(id string) bool {
	n, ok := strings.CutPrefix(id, "c")
	v, err := strconv.Atoi(n)
	return ok && err == nil && v >= 1 && strconv.Itoa(v) == n
}

// setCommentHeader reads one of writeComments' lines into p, and reports whether key was
// one. A line that does not read drops its comment (settleComments), or is no answer.
func setCommentHeader(p *Plan, key, value string) bool {
	switch key {
	case hdrComment, hdrCommentText, hdrCommentAnswered, hdrCommentAnswer, hdrCommentResolved:
	default:
		return false
	}
	var s string
	ok := DecodeJSONString(value, &s) == nil
	if key == hdrComment {
		c, read := parseCommentHead(s)
		if !ok || !read {
			c = Comment{} // no ID: the lines after it belong to no comment
		}
		p.Comments = append(p.Comments, c)
		return true
	}
	if len(p.Comments) == 0 || !ok {
		return true
	}
	c := &p.Comments[len(p.Comments)-1]
	switch key {
	case hdrCommentText:
		c.Text = s
	case hdrCommentAnswer:
		c.Answer = s
	case hdrCommentAnswered:
		c.AnsweredAt, c.AnsweredBy = readCommentMark(s)
	case hdrCommentResolved:
		c.ResolvedAt, c.ResolvedBy = readCommentMark(s)
	}
	return true
}

// readCommentMark is parseCommentMark's time and who; nil and "" when it does not read.
func readCommentMark(s string) (*time.Time, string) {
	at, who, ok := parseCommentMark(s)
	if !ok {
		return nil, ""
	}
	return &at, who
}

// settleComments drops the comments decoded without an ID or a text.
func settleComments(p *Plan) {
	p.Comments = slices.DeleteFunc(p.Comments, func(c Comment) bool { return c.ID == "" || c.Text == "" })
	if len(p.Comments) == 0 {
		p.Comments = nil
	}
}

// sealedComments is what the header seal covers of cs: every line writeComments writes.
func sealedComments(cs []Comment) string {
	var b strings.Builder
	writeComments(&b, &Plan{Comments: cs})
	return b.String()
}

// CleanCommentText is s as a comment keeps it: one paragraph of plain text, line breaks and
// tabs read as spaces, other control and bidirectional formatting characters removed, white
// space at either end trimmed.
func CleanCommentText(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case r < 0x20 || r >= 0x7f && r < 0xa0, r == 0xfeff, r >= 0x200b && r <= 0x200f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// NewComment adds to p (which it changes) the comment of by on step (0: the plan) saying
// text, at revision rev (the one it reads), and returns it. It refuses text that is empty
// or over api.MaxCommentBytes once cleaned (CleanCommentText), a step the plan does not
// have, a comment over api.MaxComments when every kept one is open (the oldest closed one
// makes room otherwise), and comments whose header lines would pass maxCommentsBytes.
func NewComment(p *Plan, step int, text, by string, rev int64, at time.Time) (Comment, error) {
	text = CleanCommentText(text)
	switch {
	case text == "":
		return Comment{}, Fail(Error{Code: CodeInvalidArgument, Reason: ReasonEmpty, Name: p.Name, Field: "text"})
	case len(text) > api.MaxCommentBytes:
		return Comment{}, Fail(Error{Code: CodeTooLarge, Reason: ReasonTooLong, Name: p.Name, Field: "text", Size: int64(len(text)), Limit: api.MaxCommentBytes})
	}
	if n := len(StepsOf(p.Content)); step < 0 || step > n {
		return Comment{}, Fail(Error{Code: CodeInvalidArgument, Reason: reasonStepMissing, Name: p.Name, Step: step, Steps: n})
	}
	cs := slices.Clone(p.Comments)
	if len(cs) >= api.MaxComments {
		closed := slices.IndexFunc(cs, func(c Comment) bool { return !c.Open() })
		if closed < 0 {
			return Comment{}, Fail(Error{Code: CodeTooLarge, Reason: reasonCommentsFull, Name: p.Name, Size: int64(len(cs)), Limit: api.MaxComments})
		}
		cs = slices.Delete(cs, closed, closed+1)
	}
	next := 1
	for _, c := range p.Comments {
		n, _ := strconv.Atoi(strings.TrimPrefix(c.ID, "c"))
		next = max(next, n+1)
	}
	c := Comment{ID: "c" + strconv.Itoa(next), Step: step, Author: TruncateUTF8(by, MaxHeaderField), At: at.UTC(), Revision: rev, Text: text}
	cs = append(cs, c)
	if size := len(sealedComments(cs)) + maxAnswerBytes*len(api.OpenComments(cs)); size > maxCommentsBytes {
		return Comment{}, Fail(Error{Code: CodeTooLarge, Reason: ReasonTooLong, Name: p.Name, Field: "comments", Size: int64(size), Limit: maxCommentsBytes})
	}
	p.Comments = cs
	return c, nil
}

// ResolveComments closes the comments of p named by ids (which it changes) as resolved by
// by at at; a comment resolved already stays as it was. An ID p does not keep is not_found.
func ResolveComments(p *Plan, ids []string, by string, at time.Time) error {
	cs := slices.Clone(p.Comments)
	for _, id := range ids {
		i := slices.IndexFunc(cs, func(c Comment) bool { return c.ID == strings.TrimSpace(id) })
		if i < 0 {
			return Fail(Error{Code: CodeNotFound, Reason: reasonCommentUnknown, Name: p.Name, Value: TruncateUTF8(id, 40)})
		}
		if cs[i].ResolvedAt == nil {
			t := at.UTC()
			cs[i].ResolvedAt, cs[i].ResolvedBy = &t, TruncateUTF8(by, MaxHeaderField)
		}
	}
	p.Comments = cs
	return nil
}

// RefuseCommentByAgent refuses a comment or a resolve an agent's tool call asks for: only a
// person comments on a plan.
func RefuseCommentByAgent(name string) error {
	return Fail(Error{Code: CodeInvalidArgument, Reason: reasonCommentByAgent, Name: name})
}

// AnswerByNote marks the open comments on step of p (which it changes) answered by by, at
// at, with note: an agent's update_plan_step that replies on the step.
func AnswerByNote(p *Plan, step int, note, by string, at time.Time) {
	if note == "" || step < 1 {
		return
	}
	answer(p, func(c Comment) (string, bool) { return note, c.Step == step }, by, at)
}

// SettleComments marks answered the open comments that an agent's rewrite of cur into next
// answers: those on a step whose text it changed (or removed), with the step's new text,
// and those on the plan when it changed the body at all.
func SettleComments(ctx context.Context, action Action, cur, next *Plan) {
	if cur == nil || action != ActionWrite || !ByAgent(ctx) || cur.Content == next.Content || len(OpenCommentsOf(next)) == 0 {
		return
	}
	was, now := StepsOf(cur.Content), StepsOf(next.Content)
	answer(next, func(c Comment) (string, bool) {
		if c.Step == 0 {
			return "", true
		}
		if c.Step > len(now) {
			return "", c.Step <= len(was)
		}
		text, _ := SplitHolder(now[c.Step-1].Text)
		if c.Step > len(was) {
			return text, true
		}
		old, _ := SplitHolder(was[c.Step-1].Text)
		return text, old != text
	}, ActorOf(ctx), next.UpdatedAt)
}

// answer marks each open comment of p that answers reports true for answered.
func answer(p *Plan, answers func(Comment) (string, bool), by string, at time.Time) {
	cs := slices.Clone(p.Comments)
	for i, c := range cs {
		if !c.Open() {
			continue
		}
		if text, ok := answers(c); ok {
			t := at.UTC()
			cs[i].AnsweredAt, cs[i].AnsweredBy = &t, TruncateUTF8(by, MaxHeaderField)
			cs[i].Answer = TruncateUTF8(CleanCommentText(text), maxAnswerBytes)
		}
	}
	p.Comments = cs
}

// OpenCommentsOf lists p's open comments.
func OpenCommentsOf(p *Plan) []Comment { return api.OpenComments(p.Comments) }

// RefuseOpenComments refuses to put p to a person while comments on it are open
// (CodeCommentsOpen, naming them in Error.Comments); nil when none is.
func RefuseOpenComments(p *Plan) error {
	open := OpenCommentsOf(p)
	if len(open) == 0 {
		return nil
	}
	return Fail(Error{Code: CodeCommentsOpen, Reason: ReasonCommentsOpen, Name: p.Name, CurrentRevision: p.Revision, Size: int64(len(open)), Comments: open})
}
