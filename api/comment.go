package api

import "time"

// Comment is a person's remark on one step of a plan (Step 0: on the plan as a whole) that
// the agents must answer before the plan can be put to a person again: request_plan_approval
// is refused (CodeCommentsOpen) while any comment is open. Only a person makes one, through
// the Store (Update.Comment, ApprovalDecision.Comments), planctl or the board; the Store
// fills in who, when and at which revision, and keeps it in the plan file under the header
// seal, so nobody without the storage's key adds, edits or removes one.
//
// A comment is answered by an agent's rewrite of the plan that changes the text of the step
// it names (for Step 0: any change of the body), or by an agent's update_plan_step with a
// note on that step; the Store records who answered, when and with what (the note, or the
// step's new text). A person may resolve it instead (Update.Resolve), answered or not.
type Comment struct {
	// ID names the comment within its plan ("c1", "c2", ...); never reused while kept.
	ID string `json:"id"`
	// Step is the step commented on, from 1; 0 is the plan as a whole.
	Step int `json:"step"`
	// Author is the person who commented; At when; Revision the plan's revision they read.
	Author   string    `json:"author"`
	At       time.Time `json:"at"`
	Revision int64     `json:"revision"`
	// Text is what they said: plain text, one paragraph, at most MaxCommentBytes.
	Text string `json:"text"`
	// AnsweredBy, AnsweredAt and Answer record the agent's answer; empty while unanswered.
	AnsweredBy string     `json:"answered_by,omitempty"`
	AnsweredAt *time.Time `json:"answered_at,omitempty"`
	Answer     string     `json:"answer,omitempty"`
	// ResolvedBy and ResolvedAt record a person closing it; empty while not resolved.
	ResolvedBy string     `json:"resolved_by,omitempty"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
}

// Open reports whether c still waits for an answer: neither answered nor resolved.
func (c Comment) Open() bool { return c.AnsweredAt == nil && c.ResolvedAt == nil }

// Bounds of comments: the bytes of a comment's text (and of an answer as kept), and how many
// comments a plan keeps. A new comment over MaxComments drops the oldest closed one, and is
// refused (CodeTooLarge) when every kept comment is open.
const (
	MaxCommentBytes = 1000
	MaxComments     = 12
)

// OpenComments lists the comments of cs that are open, in order.
func OpenComments(cs []Comment) []Comment {
	var out []Comment
	for _, c := range cs {
		if c.Open() {
			out = append(out, c)
		}
	}
	return out
}
