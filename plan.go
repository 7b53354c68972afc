package plan

import (
	"context"

	"github.com/einoplan/plan/internal/document"
)

// Plan is one stored plan: a small header and a Markdown body kept byte for byte.
type Plan = document.Plan

// Summary is a plan without its body: what list_plans and the digest carry.
type Summary = document.Summary

// Progress counts steps by state. Total is the sum of the other counts for steps in known
// states; Percent is floor(100*(Completed+Skipped)/Total), and 0 when Total is 0. In JSON,
// zero counts are omitted to keep tool results short; total and percent are always there.
type Progress = document.Progress

// Step is one checklist item of a plan body. Number, Depth and Line are derived from the
// body's block structure; State and Text are read from the line that holds the marker.
type Step = document.Step

// StepState is the state of one checklist step. Each state has exactly one marker character
// inside the step's brackets, so a state is always read from and written to the plan body.
type StepState = document.StepState

// The states of a step, each with its marker.
const (
	StepPending    = document.StepPending    // "[ ]"
	StepInProgress = document.StepInProgress // "[~]"
	StepCompleted  = document.StepCompleted  // "[x]"; "[X]" is read as completed too
	StepFailed     = document.StepFailed     // "[!]"
	StepSkipped    = document.StepSkipped    // "[-]"
)

// StepCost is what one step cost while an agent held it, or what steps cost together.
type StepCost = document.StepCost

// Budget bounds what one step, or a whole plan, may cost. Zero fields bound nothing.
type Budget = document.Budget

// Approval records that a person approved a plan: the revision whose body they saw, who,
// and when. It stays on the plan while the body changes only by step moves and notes
// (update_plan_step) or not at all (status, title, author); any other change to the body
// revokes it. The stored header also carries the approval's seal (approval_seal.go), so a
// body edited outside the Store, or an approval written by anyone without the storage's
// key, reads as not approved.
type Approval = document.Approval

// ApprovalRequest is what a person sees when a plan asks for approval (Config.OnApproval,
// the approval interrupt, the board, planctl): the plan at one revision and what changed.
type ApprovalRequest = document.ApprovalRequest

// ApprovalDecision is a person's answer to an ApprovalRequest.
type ApprovalDecision = document.ApprovalDecision

// Waiting says that a run is paused until a person decides on a plan: request_plan_approval
// records it in a change of its own (Action "await"), and a decision (Approve, Reject) ends it.
type Waiting = document.Waiting

// Rejection records that a person turned down a revision of a plan, and why.
type Rejection = document.Rejection

// Action names the kind of mutation a Change reports.
type Action = document.Action

// The mutations a Change can report.
const (
	ActionWrite   = document.ActionWrite
	ActionStatus  = document.ActionStatus
	ActionStep    = document.ActionStep
	ActionDelete  = document.ActionDelete
	ActionApprove = document.ActionApprove
	ActionRevoke  = document.ActionRevoke
	// ActionReject records a person's rejection of a revision (Store.Reject); the body stays.
	ActionReject = document.ActionReject
	// ActionResync is the Action of a Change that tells a watcher it may have missed changes:
	// its Name is empty and its other fields are zero. The receiver should List again to learn
	// the current state. It is sent once for any number of missed changes.
	ActionResync = document.ActionResync
)

// Error is the one error type the Store and the tools return. It carries facts, never
// advice: Message states them in English for logs and host programs, and each audience (the
// model through the tools, a person through planctl) renders its own words from Code, Reason
// and the fields. A field is set when the failure concerns it.
type Error = document.Error

// Code classifies an Error. Codes are part of the tool contract: models and host programs
// branch on them, so they never change meaning.
type Code = document.Code

// The error codes a tool result or a Store call can carry.
const (
	CodeInvalidArgument   = document.CodeInvalidArgument   // the call itself is wrong; fix the arguments
	CodeNotFound          = document.CodeNotFound          // no plan (or workspace file) by that name
	CodeRevisionConflict  = document.CodeRevisionConflict  // last_known_revision is not the current revision
	CodeTooLarge          = document.CodeTooLarge          // content over the configured cap
	CodeCorrupt           = document.CodeCorrupt           // the stored file does not decode
	CodeToolNotAvailable  = document.CodeToolNotAvailable  // the tool is not offered to this agent
	CodeIllegalTransition = document.CodeIllegalTransition // a step cannot move between these states
	CodeBackendError      = document.CodeBackendError      // storage failed; retrying later may help
	CodeCanceled          = document.CodeCanceled          // the context ended before anything was written
	CodeUnknownOutcome    = document.CodeUnknownOutcome    // storage failed mid-write and whether it landed is unknown: re-read
	CodeStepHeld          = document.CodeStepHeld          // another agent holds the step (it moved it to in_progress)
	CodeNotApproved       = document.CodeNotApproved       // the plan must be approved at its current revision first
	CodeStepBlocked       = document.CodeStepBlocked       // the step waits for steps not yet completed or skipped (Error.Waits)
	CodeEvidenceRequired  = document.CodeEvidenceRequired  // a completion needs evidence (Config.RequireEvidence)
	CodeNotVerified       = document.CodeNotVerified       // Config.Verify refused the completion; Error.Value says why
	CodeOverBudget        = document.CodeOverBudget        // a gated tool did not run: its step, or its plan, went over budget
)

// CodeOf returns the Code of err if it is (or wraps) an *Error, and "" otherwise.
func CodeOf(err error) Code {
	return document.CodeOf(err)
}

// ParseSteps returns the checklist items of body in document order, or nil when there are
// none. Body is read as CommonMark: a step is a list item ("-", "*", "+", "1." or "1)", in
// blockquotes and nested lists too) whose first block is a paragraph starting with a marker
// "[c]", c being one of the marker characters, followed by a space or the end of the line.
// Nothing inside a code block (fenced, even unclosed, or indented) or an HTML block or
// comment is a step, nor is a paragraph that a setext underline turns into a heading. It
// never fails, and its time grows linearly with len(body).
func ParseSteps(body string) []Step {
	return document.ParseSteps(body)
}

// EncodePlan renders p as it is stored: a header of `key: value` lines between two "---"
// lines, each value a JSON scalar (so YAML readers parse it too), then the body unchanged.
// The name is not stored: it is the file name.
func EncodePlan(p *Plan) string {
	return document.EncodePlan(p)
}

// DecodePlan parses a stored plan. Anything that is not a header this package could have
// written (no opening or closing fence, a line that is not `key: JSON scalar`, a negative
// revision, a bad timestamp) is an *Error with CodeCorrupt. Unknown keys are ignored so
// newer writers stay readable. A header without revision decodes as revision 0.
//
// The plan it returns is never approved (Approval is nil), whatever approval lines the file
// holds: an approval counts only when its seal is the storage's, and only a Store, which
// reads the key, can check that (Store.Get, GetRevision and List report verified approvals).
// So neither DecodePlan nor Summarize of its result can be made to report an approval by
// whoever writes a file; EncodePlan of its result writes no approval lines.
func DecodePlan(name, raw string) (*Plan, error) {
	return document.DecodePlan(name, raw)
}

// ValidateName accepts exactly the names matching ^[a-z0-9][a-z0-9_-]*$ of at most
// maxNameLen bytes. Names are rejected, never rewritten: rewriting would let two different
// inputs land on one file, and a name that is only ever [a-z0-9_-] cannot leave BaseDir.
func ValidateName(name string) error {
	return document.ValidateName(name)
}

// WithActor returns ctx marked with who makes the Store changes made with it: a person
// using a host program, say. The history records name as who made each change (but an
// approval, which names its approver), MoveStep holds steps under it when given no name of
// its own, and a plan created without an author gets it. Tool calls carry the agent that
// makes them; "" leaves ctx unchanged.
func WithActor(ctx context.Context, name string) context.Context {
	return document.WithActor(ctx, name)
}
