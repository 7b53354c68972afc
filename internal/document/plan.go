package document

import (
	"time"
	"unicode/utf8"
)

// Plan is one stored plan: a small header and a Markdown body kept byte for byte.
type Plan struct {
	Name      string    `json:"name"`
	Title     string    `json:"title"`
	Status    string    `json:"status"`
	Author    string    `json:"author"`
	Revision  int64     `json:"revision"`
	UpdatedAt time.Time `json:"updated_at"`
	Content   string    `json:"content"`
	// Approval is the approval the current body carries; nil when not approved.
	Approval *Approval `json:"approval,omitempty"`
	// RequiresApproval records that the plan was written under Config.RequireApproval: every
	// Store and middleware on its storage then refuses step moves, and rewrites that move
	// steps, until it is approved at its current revision. Once set, it stays, through a
	// delete too: the tombstone keeps it for a plan written again under the name.
	RequiresApproval bool `json:"requires_approval,omitempty"`
	// Waiting is the run paused until a person decides on the plan; nil when none is.
	Waiting *Waiting `json:"waiting,omitempty"`
	// Rejection is the last rejection of the plan (Store.Reject), until it is approved or a
	// run asks again; nil otherwise.
	Rejection *Rejection `json:"rejection,omitempty"`
	// Budget is what the whole plan may cost, as its header writes it ("200k tokens, 1h",
	// steps_asks.go): a person sets it (Update.Budget); "" bounds nothing.
	Budget string `json:"budget,omitempty"`
	// Seal is the approval's seal as stored (approval_seal.go); "" when not approved.
	Seal string
	// StepsRev is the revision at which the list of steps (their text and order) last
	// changed; 0 when the file does not say.
	StepsRev int64
	// Holds is when each held step was last moved by its holder, as the header stores it
	// ("3@<time>,5@<time>", leases.go); expiredHold is "3 w1" when this revision moved step 3
	// after w1's hold on it expired. Strings, so a Plan stays comparable.
	Holds       string
	ExpiredHold string
	// RenewalNotes records the note at the end of each step in progress that the next move
	// keeping it in progress replaces ("3:45", steps_renewal.go).
	RenewalNotes string
	// Action, created and changedBy record the change that made this revision, as the
	// header's change lines say (change.go): every kept revision is the plan file as it was
	// written, so it carries its own record. Empty when the file does not say, or was edited
	// by hand since. replaces is the checksum of the file this revision replaced, which
	// names its history entry.
	Action    Action
	Created   bool
	ChangedBy string
	Replaces  string
	// ByAgent records that an agent's tool call made this revision, not a host; fence is
	// "<revision> <who>" of the newest host change agents must read (fence.go).
	ByAgent bool
	fence   string
	// newerFormat is the format version the file's header names when it is newer than
	// formatVersion (format.go); 0 otherwise.
	newerFormat int64
	// Repaired reports that the stored file was not valid UTF-8 (someone edited it by hand):
	// each invalid byte sequence reads as U+FFFD, and the next write stores the repair.
	Repaired bool `json:"repaired,omitempty"`
}

// Summary is a plan without its body: what list_plans, the digest and change events carry.
type Summary struct {
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Status      string    `json:"status"`
	Author      string    `json:"author,omitempty"`
	Revision    int64     `json:"revision"`
	UpdatedAt   time.Time `json:"updated_at"`
	Progress    Progress  `json:"progress"`
	CurrentStep *Step     `json:"current_step,omitempty"`
	// NextStep is the first ready step (pending, every step it waits for completed or
	// skipped), when it is not CurrentStep: the step an agent looking for work takes while
	// others hold steps in progress. CurrentStep is the first step in progress, else that
	// same ready step; neither is set for a step that is not ready.
	NextStep *Step     `json:"next_step,omitempty"`
	Approval *Approval `json:"approval,omitempty"`
	Repaired bool      `json:"repaired,omitempty"`
	// Waiting is the run paused until a person decides on the plan; nil when none is.
	Waiting *Waiting `json:"waiting,omitempty"`
}

// Summarize derives the Summary of p, parsing its checklist once. Its Approval is p's: set
// only on a plan a Store read and whose seal it checked, never on one from DecodePlan.
func (p *Plan) Summarize() Summary {
	steps := StepsOf(p.Content)
	sum := Summary{
		Name: p.Name, Title: p.Title, Status: p.Status, Author: p.Author,
		Revision: p.Revision, UpdatedAt: p.UpdatedAt, Progress: ComputeProgress(steps), Repaired: p.Repaired,
		Approval: p.Approval, Waiting: p.Waiting,
	}
	if cur, ok := CurrentStep(steps); ok {
		sum.CurrentStep = &cur
		if next, ok := NextFreeStep(steps); ok && next.Number != cur.Number {
			sum.NextStep = &next
		}
	}
	return sum
}

// TruncateUTF8 cuts s to at most n bytes without splitting a rune.
func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// MaxHeaderField bounds one header field's value.
const MaxHeaderField = 1024

// CopyPlan returns a Plan that shares nothing mutable with p.
func CopyPlan(p *Plan) *Plan {
	c := *p
	if p.Approval != nil {
		a := *p.Approval
		c.Approval = &a
	}
	return &c
}

// SamePlan reports whether a and b are the same revision with the same fields throughout.
func SamePlan(a, b *Plan) bool {
	x, y := *a, *b
	x.Approval, y.Approval = nil, nil
	if x != y || (a.Approval == nil) != (b.Approval == nil) {
		return false
	}
	return a.Approval == nil || *a.Approval == *b.Approval
}
