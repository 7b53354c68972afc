package api

import (
	"errors"
	"fmt"
	"time"
)

// Code classifies an Error. Codes are part of the tool contract: models and host programs
// branch on them, so they never change meaning.
type Code string

// The error codes a tool result or a Store call can carry.
const (
	CodeInvalidArgument   Code = "invalid_argument"   // the call itself is wrong; fix the arguments
	CodeNotFound          Code = "not_found"          // no plan (or workspace file) by that name
	CodeRevisionConflict  Code = "revision_conflict"  // last_known_revision is not the current revision
	CodeTooLarge          Code = "too_large"          // content over the configured cap
	CodeCorrupt           Code = "corrupt"            // the stored file does not decode
	CodeToolNotAvailable  Code = "tool_not_available" // the tool is not offered to this agent
	CodeIllegalTransition Code = "illegal_transition" // a step cannot move between these states
	CodeBackendError      Code = "backend_error"      // storage failed; retrying later may help
	CodeCanceled          Code = "canceled"           // the context ended before anything was written
	CodeUnknownOutcome    Code = "unknown_outcome"    // storage failed mid-write and whether it landed is unknown: re-read
	CodeStepHeld          Code = "step_held"          // another agent holds the step (it moved it to in_progress)
	CodeNotApproved       Code = "not_approved"       // the plan must be approved at its current revision first
	CodeStepBlocked       Code = "step_blocked"       // the step waits for steps not yet completed or skipped (Error.Waits)
	CodeEvidenceRequired  Code = "evidence_required"  // a completion needs evidence (Config.RequireEvidence)
	CodeNotVerified       Code = "not_verified"       // Config.Verify refused the completion; Error.Value says why
	CodeOverBudget        Code = "over_budget"        // a gated tool did not run: its step, or its plan, went over budget
	CodeUnproven          Code = "unproven"           // a "(proof …)" step completes only on a fresh passing call the host observed
	CodeRolledBack        Code = "rolled_back"        // the stored plan file is older than the Store knows it to be: put back by hand
	CodeCommentsOpen      Code = "comments_open"      // people's comments on the plan wait for an answer (Error.Comments)
)

// Error is the one error type the Store and the tools return. It carries facts, never
// advice: Message states them in English for logs and host programs, and each audience (the
// model through the tools, a person through planctl) renders its own words from Code, Reason
// and the fields. A field is set when the failure concerns it.
type Error struct {
	Code Code
	// Reason names the exact failure within Code ("exists" for a create-only write of a plan
	// that exists, "step_moved" for a stale move of a step someone moved since). Reasons are
	// stable snake_case words: the tools render the model's message from one text per reason.
	Reason string
	// Name is the plan concerned.
	Name string
	// Field is the argument or header field at fault; Value its offending value, shortened.
	Field, Value string
	// Path is the file concerned.
	Path string
	// CurrentRevision is the plan's revision at the time of the failure; Revision the one
	// the caller named.
	CurrentRevision, Revision int64
	// Size and Limit: how large something is, and how large it may be.
	Size, Limit int64
	// Step is the step number concerned; Steps how many steps the plan has.
	Step, Steps int
	// From and To are the states of a refused step move.
	From, To StepState
	// Agent is who holds the step concerned, or who moved it.
	Agent string
	// Next is the step an agent looking for work should take instead, when there is one.
	Next *Step
	// Waits are the step numbers concerned by a step's prerequisites: those a blocked step
	// waits for (CodeStepBlocked), those that wait for a step an agent may not skip, or
	// those a refused body names or cycles through. When no
	// pending step is ready, the held or failed steps that every pending one waits for,
	// directly or through other pending steps: the lowest 8.
	Waits []int
	// Expires is when the hold that causes a step_held or step_blocked refusal runs out
	// unless its holder renews it (StoreConfig.HoldTTL); zero without a lease.
	Expires time.Time
	// Comments are the open comments that refuse a request for approval (CodeCommentsOpen).
	Comments []Comment
	// Message states the facts in English.
	Message string
	// Err is the underlying cause, never shown to a model.
	Err error
}

// Error is Code and Message, and the cause when there is one.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause, so errors.Is and errors.As see through an Error.
func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the Code of err if it is (or wraps) an *Error, and "" otherwise.
func CodeOf(err error) Code {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
