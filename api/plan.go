package api

import "time"

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
	// Budget is what the whole plan may cost, as its header writes it ("200k tokens, 1h"):
	// a person sets it (Update.Budget); "" bounds nothing.
	Budget string `json:"budget,omitempty"`
	// The fields from Seal to NewerFormat are the stored header's bookkeeping, which the
	// Store reads and writes: a host reads them at most.
	//
	// Seal is the approval's seal as stored; "" when not approved.
	Seal string
	// HeaderSeal is the seal, under the storage's key, of what a person set or decided in
	// the header (the budget, the approval requirement, a waiting run, a rejection, the
	// checksum the revision replaced); "" when the file carries none.
	HeaderSeal string
	// StepsRev is the revision at which the list of steps (their text and order) last
	// changed; 0 when the file does not say.
	StepsRev int64
	// Holds is when each held step was last moved by its holder, as the header stores it
	// ("3@<time>,5@<time>"); ExpiredHold is "3 w1" when this revision moved step 3
	// after w1's hold on it expired.
	Holds       string
	ExpiredHold string
	// RenewalNotes records the note at the end of each step in progress that the next move
	// keeping it in progress replaces ("3:45").
	RenewalNotes string
	// Action, Created and ChangedBy record the change that made this revision, as the
	// header's change lines say: every kept revision is the plan file as it was
	// written, so it carries its own record. Empty when the file does not say, or was edited
	// by hand since. Replaces is the checksum of the file this revision replaced, which
	// names its history entry.
	Action    Action
	Created   bool
	ChangedBy string
	Replaces  string
	// ByAgent records that an agent's tool call made this revision, not a host; Fence is
	// "<revision> <who>" of the newest host change agents must read.
	ByAgent bool
	Fence   string
	// NewerFormat is the format version the file's header names when it is newer than
	// the format this release writes; 0 otherwise.
	NewerFormat int64
	// Repaired reports that the stored file was not valid UTF-8 (someone edited it by hand):
	// each invalid byte sequence reads as U+FFFD, and the next write stores the repair.
	Repaired bool `json:"repaired,omitempty"`
	// Comments are people's comments on the plan's steps (Comment), open and closed, oldest
	// first; the header seal covers them.
	Comments []Comment `json:"comments,omitempty"`
	// OverBudget: what its steps' lines record they cost together (TotalCost) went over the
	// plan's own budget (Budget). Derived when the plan is read; never stored.
	OverBudget bool `json:"over_budget,omitempty"`
	// Linked reports that the stored file has other names (someone hard-linked it, on a
	// LocalBackend): it is served, the file guard refuses its other names as it refuses the
	// plan file, and the next write gives the plan a file of its own, breaking the link.
	Linked bool `json:"linked,omitempty"`
}

// Approval records that a person approved a plan: the revision whose body they saw, who,
// and when. It stays on the plan while the body changes only by step moves and notes
// (update_plan_step) or not at all (status, title, author); any other change to the body
// revokes it. The stored header also carries the approval's seal , so a
// body edited outside the Store, or an approval written by anyone without the storage's
// key, reads as not approved.
type Approval struct {
	Revision int64     `json:"revision"`
	By       string    `json:"by"`
	At       time.Time `json:"at"`
}

// Waiting says that a run is paused until a person decides on a plan: request_plan_approval
// records it in a change of its own (Action "await"), and a decision (Approve, Reject) ends it.
type Waiting struct {
	// Revision is the revision the run asked a person to approve.
	Revision int64 `json:"revision"`
	// Agent is the agent that asked; Since when it did.
	Agent string    `json:"agent,omitempty"`
	Since time.Time `json:"since"`
	// Interrupt is the ID of the Eino interrupt the run paused on when it asked: a host
	// that restarted resumes the run with it (adk.ResumeParams.Targets) from its
	// CheckPointStore, keeping nothing of its own. Empty when the asking was no Eino
	// interrupt (the MCP server), or the plan was written by an older release. A resume
	// of the run for another of its interrupts pauses this one again under a new ID, which
	// that resume's events report; the mark keeps the first.
	Interrupt string `json:"interrupt,omitempty"`
}

// Rejection records that a person turned down a revision of a plan, and why.
type Rejection struct {
	Revision int64     `json:"revision"`
	By       string    `json:"by"`
	At       time.Time `json:"at"`
	Feedback string    `json:"feedback,omitempty"`
}

// Action names the kind of mutation a Change reports.
type Action string

// The mutations a Change can report.
const (
	ActionWrite  Action = "write"
	ActionStatus Action = "status"
	ActionStep   Action = "step"
	ActionDelete Action = "delete"
)

// The mutations of approvals. Each is a write of its own: it makes a revision, is kept in
// the history and is reported as a Change, so who approved what, and who revoked it, can be
// read back later.
const (
	ActionApprove Action = "approve"
	ActionRevoke  Action = "revoke"
)

// ActionReject is the Action of a change that records a person's rejection of a revision
// (Store.Reject); actionAwait the one of a run starting to wait for a decision
// (request_plan_approval). Both leave the body as it is.
const (
	ActionReject Action = "reject"
	ActionAwait  Action = "await"
)

// ActionResync is the Action of a Change that tells a watcher it may have missed changes:
// its Name is empty and its other fields are zero. The receiver should List again to learn
// the current state. It is sent once for any number of missed changes.
const ActionResync Action = "resync"
