package plan

import (
	"context"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/document"
)

// The plan and its vocabulary are declared in package api, which `go doc` shows whole
// (`go doc github.com/einoplan/plan/api Plan`); package plan names them here so a host
// imports plan alone.

// Plan is one stored plan: a small header and a Markdown body kept byte for byte.
type Plan = api.Plan

// Summary is a plan without its body: what list_plans, the digest and change events carry.
type Summary = api.Summary

// Step is one checklist item of a plan body.
type Step = api.Step

// StepState is the state of one checklist step, each written as one marker character.
type StepState = api.StepState

// The states of a step, each with its marker.
const (
	StepPending    = api.StepPending    // "[ ]"
	StepInProgress = api.StepInProgress // "[~]"
	StepCompleted  = api.StepCompleted  // "[x]"; "[X]" is read as completed too
	StepFailed     = api.StepFailed     // "[!]"
	StepSkipped    = api.StepSkipped    // "[-]"
)

// StepCost is what one step cost while an agent held it (StepMove.Cost, Step.Cost).
type StepCost = api.StepCost

// ApprovalRequest is what a person sees when a plan asks for approval.
type ApprovalRequest = api.ApprovalRequest

// ApprovalDecision is a person's answer to an ApprovalRequest.
type ApprovalDecision = api.ApprovalDecision

// Action names the kind of mutation a Change reports.
type Action = api.Action

// The mutations a Change can report.
const (
	ActionWrite   = api.ActionWrite
	ActionStatus  = api.ActionStatus
	ActionStep    = api.ActionStep
	ActionDelete  = api.ActionDelete
	ActionApprove = api.ActionApprove
	ActionRevoke  = api.ActionRevoke
	ActionReject  = api.ActionReject // a person's rejection of a revision; the body stays
	ActionResync  = api.ActionResync // a watcher may have missed changes: List again
)

// Error is the one error type the Store and the tools return: facts, never advice.
type Error = api.Error

// Code classifies an Error; codes never change meaning.
type Code = api.Code

// The error codes a tool result or a Store call can carry.
const (
	CodeInvalidArgument   = api.CodeInvalidArgument   // the call itself is wrong; fix the arguments
	CodeNotFound          = api.CodeNotFound          // no plan (or workspace file) by that name
	CodeRevisionConflict  = api.CodeRevisionConflict  // last_known_revision is not the current revision
	CodeTooLarge          = api.CodeTooLarge          // content over the configured cap
	CodeCorrupt           = api.CodeCorrupt           // the stored file does not decode
	CodeToolNotAvailable  = api.CodeToolNotAvailable  // the tool is not offered to this agent
	CodeIllegalTransition = api.CodeIllegalTransition // a step cannot move between these states
	CodeBackendError      = api.CodeBackendError      // storage failed; retrying later may help
	CodeCanceled          = api.CodeCanceled          // the context ended before anything was written
	CodeUnknownOutcome    = api.CodeUnknownOutcome    // storage failed mid-write and whether it landed is unknown: re-read
	CodeStepHeld          = api.CodeStepHeld          // another agent holds the step (it moved it to in_progress)
	CodeNotApproved       = api.CodeNotApproved       // the plan must be approved at its current revision first
	CodeStepBlocked       = api.CodeStepBlocked       // the step waits for steps not yet completed or skipped (Error.Waits)
	CodeEvidenceRequired  = api.CodeEvidenceRequired  // a completion needs evidence (Config.RequireEvidence)
	CodeNotVerified       = api.CodeNotVerified       // Config.Verify refused the completion; Error.Value says why
	CodeOverBudget        = api.CodeOverBudget        // a gated tool did not run: its step, or its plan, went over budget
	CodeUnproven          = api.CodeUnproven          // a "(proof …)" step completes only on a fresh passing call the host observed
	CodeRolledBack        = api.CodeRolledBack        // the stored plan file is older than the Store knows it to be: put back by hand
	CodeCommentsOpen      = api.CodeCommentsOpen      // people's comments on the plan wait for an answer (Error.Comments)
)

// CodeOf returns the Code of err if it is (or wraps) an *Error, and "" otherwise.
func CodeOf(err error) Code {
	return api.CodeOf(err)
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

// Summarize derives the Summary of p, parsing its checklist once. Its Approval is p's: set
// only on a plan a Store read and whose seal it checked.
func Summarize(p *Plan) Summary {
	return document.Summarize(p)
}

// WithActor returns ctx marked with who makes the Store changes made with it: a person
// using a host program, say. The history records name as who made each change (but an
// approval, which names its approver), MoveStep holds steps under it when given no name of
// its own, and a plan created without an author gets it. Tool calls carry the agent that
// makes them; "" leaves ctx unchanged.
func WithActor(ctx context.Context, name string) context.Context {
	return document.WithActor(ctx, name)
}
