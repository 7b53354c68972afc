package plan

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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
)

// Reason names the exact failure within a Code ("exists" for a create-only write of a plan
// that exists, say). Reasons are stable: the tools render their message to the model from a
// text per reason, in the model's language, and hosts may branch on them.
type Reason string

// Error is the one error type the Store and the tools return. It carries facts, never
// advice: Message states them in English for logs and host programs, and each audience (the
// model through the tools, a person through planctl) renders its own words from Code, Reason
// and the fields. A field is set when the failure concerns it.
type Error struct {
	Code   Code
	Reason Reason
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
	// Message states the facts in English.
	Message string
	// Err is the underlying cause, never shown to a model.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the Code of err if it is (or wraps) an *Error, and "" otherwise.
func CodeOf(err error) Code {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// fail returns e with its Message rendered from the facts.
func fail(e Error) *Error {
	e.Message = e.render(factTexts[e.Reason])
	if e.Message == "" {
		e.Message = string(e.Reason)
	}
	return &e
}

// render fills a text's placeholders ({name}, {current}, ...) with e's facts.
func (e *Error) render(text string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	return strings.NewReplacer(
		"{name}", quoteForMessage(e.Name),
		"{field}", e.Field,
		"{value}", quoteForMessage(e.Value),
		"{path}", quoteForMessage(e.Path),
		"{current}", strconv.FormatInt(e.CurrentRevision, 10),
		"{rev}", strconv.FormatInt(e.Revision, 10),
		"{size}", strconv.FormatInt(e.Size, 10),
		"{limit}", strconv.FormatInt(e.Limit, 10),
		"{step}", strconv.Itoa(e.Step),
		"{steps}", strconv.Itoa(e.Steps),
		"{from}", string(e.From),
		"{to}", string(e.To),
		"{agent}", quoteForMessage(e.Agent),
	).Replace(text)
}

// The reasons, grouped by code.
const (
	ReasonArgsNotObject     Reason = "args_not_object"
	ReasonArgsNotJSON       Reason = "args_not_json"
	ReasonArgsTooLarge      Reason = "args_too_large"
	ReasonRequired          Reason = "required"
	ReasonNotString         Reason = "not_string"
	ReasonNotInteger        Reason = "not_integer"
	ReasonEmpty             Reason = "empty"
	ReasonNotUTF8           Reason = "not_utf8"
	ReasonTooLong           Reason = "too_long"
	ReasonNameInvalid       Reason = "name_invalid"
	ReasonPathUnusable      Reason = "path_unusable"
	ReasonPathEscapes       Reason = "path_escapes"
	ReasonPathRelative      Reason = "path_relative"
	ReasonPathInPlans       Reason = "path_in_plans"
	ReasonWorkspaceWrite    Reason = "workspace_write"
	ReasonWorkspaceRead     Reason = "workspace_read"
	ReasonNeedsContent      Reason = "needs_content"
	ReasonRevisionNegative  Reason = "revision_negative"
	ReasonDeleteCreateOnly  Reason = "delete_create_only"
	ReasonStepNumber        Reason = "step_number"
	ReasonStepMissing       Reason = "step_missing"
	ReasonStepStateUnknown  Reason = "step_state_unknown"
	ReasonNoteMultiline     Reason = "note_multiline"
	ReasonGoalInvalid       Reason = "goal_invalid"
	ReasonNoPlan            Reason = "no_plan"
	ReasonNoPlanGuarded     Reason = "no_plan_guarded"
	ReasonNoRevision        Reason = "no_revision"
	ReasonNoFile            Reason = "no_file"
	ReasonExists            Reason = "exists"
	ReasonStale             Reason = "stale"
	ReasonContentTooLarge   Reason = "content_too_large"
	ReasonStoredTooLarge    Reason = "stored_too_large"
	ReasonFileTooLarge      Reason = "file_too_large"
	ReasonUndecodable       Reason = "undecodable"
	ReasonNotPlanFile       Reason = "not_plan_file"
	ReasonRevisionExhausted Reason = "revision_exhausted"
	ReasonSameState         Reason = "same_state"
	ReasonInProgressOnly    Reason = "in_progress_only"
	ReasonFinalState        Reason = "final_state"
	ReasonOrchestratorOnly  Reason = "orchestrator_only"
	ReasonStorage           Reason = "storage"
	ReasonContention        Reason = "contention"
	ReasonCanceled          Reason = "canceled"
	ReasonUnknownOutcome    Reason = "unknown_outcome"
)

// factTexts states each failure in English with its facts and without advice: what
// Error.Message says to logs and host programs.
var factTexts = map[Reason]string{
	ReasonArgsNotObject:     "the arguments are not a JSON object",
	ReasonArgsNotJSON:       "the arguments are not valid JSON",
	ReasonArgsTooLarge:      "the arguments are {size} bytes, over the {limit}-byte limit",
	ReasonRequired:          "{field} is missing",
	ReasonNotString:         "{field} is not a string",
	ReasonNotInteger:        "{field} is not an integer",
	ReasonEmpty:             "{field} is empty",
	ReasonNotUTF8:           "{field} is not valid UTF-8",
	ReasonTooLong:           "{field} is {size} bytes, over the {limit}-byte limit",
	ReasonNameInvalid:       "name {value} is not a plan name (lowercase a-z, 0-9, '-' and '_', starting with a letter or digit)",
	ReasonPathUnusable:      "{field} is not a usable file path",
	ReasonPathEscapes:       "path {path} leaves the workspace",
	ReasonPathRelative:      "path {path} is relative",
	ReasonPathInPlans:       "path {path} is inside the plans folder {value}",
	ReasonWorkspaceWrite:    "cannot write {path} in the workspace",
	ReasonWorkspaceRead:     "cannot read {path} from the workspace",
	ReasonNeedsContent:      "plan {name} does not exist and no content was given",
	ReasonRevisionNegative:  "revision {rev} is negative",
	ReasonDeleteCreateOnly:  "revision 0 (create only) cannot guard a delete",
	ReasonStepNumber:        "step {step} is not a step number",
	ReasonStepMissing:       "there is no step {step}; the plan has {steps} checklist steps",
	ReasonStepStateUnknown:  "{value} is not a step state (pending, in_progress, completed, failed, skipped)",
	ReasonNoteMultiline:     "the note has line breaks",
	ReasonGoalInvalid:       "the goal is empty, not UTF-8 or over {limit} bytes",
	ReasonNoPlan:            "no plan named {name}",
	ReasonNoPlanGuarded:     "no plan named {name} at revision {rev}",
	ReasonNoRevision:        "revision {rev} of plan {name} is not kept; it is at revision {current}",
	ReasonNoFile:            "no file at {path}",
	ReasonExists:            "plan {name} already exists, at revision {current}",
	ReasonStale:             "plan {name} is at revision {current}, not {rev}",
	ReasonContentTooLarge:   "the content is {size} bytes, over the {limit}-byte limit",
	ReasonStoredTooLarge:    "the stored file {path} is over the {limit}-byte limit",
	ReasonFileTooLarge:      "file {path} is over the {limit}-byte limit",
	ReasonUndecodable:       "plan {name} cannot be decoded",
	ReasonNotPlanFile:       "the entry {path} is not a plan file (a link, a folder or a special file)",
	ReasonRevisionExhausted: "plan {name} cannot get a revision past {current}",
	ReasonSameState:         "step {step} is already {from}",
	ReasonInProgressOnly:    "step {step} is in_progress and can only become completed or failed, not {to}",
	ReasonFinalState:        "step {step} is {from}, a final state, and cannot become {to}",
	ReasonOrchestratorOnly:  "this tool is for the orchestrator only",
	ReasonStorage:           "the plan storage failed",
	ReasonContention:        "too many concurrent writers on {name}",
	ReasonCanceled:          "the request was canceled before anything was written",
	ReasonUnknownOutcome:    "the plan storage failed during a write to {path}, and whether it was done is unknown",
	ReasonListLimit:         "the limit is out of range (1 to {limit})",
	ReasonNotBoolean:        "{field} is not a boolean",
	ReasonNoteTag:           "the note {value} ends like a holder's tag (@name)",
	ReasonStepHeld:          "step {step} is held by {agent}",
	ReasonNoPendingStep:     "no step of plan {name} is pending",
	ReasonStepMoved:         "step {step} changed since revision {rev}: it is {from} now (by {agent})",
	ReasonStepChanged:       "step {step} changed since revision {rev}: it is {from} now",
	ReasonStepsChanged:      "the steps of plan {name} were added, removed, reworded or reordered since revision {rev}; it is at revision {current}",
	ReasonFileNotUTF8:       "file {path} is not valid UTF-8 text",
	ReasonFileEmpty:         "file {path} is empty",
}

// More reasons: a list_plans limit out of range; a workspace file that is not UTF-8 text, or
// holds nothing but white space.
const (
	ReasonListLimit   Reason = "list_limit"
	ReasonFileNotUTF8 Reason = "file_not_utf8"
	ReasonFileEmpty   Reason = "file_empty"
	ReasonNotBoolean  Reason = "not_boolean"
	ReasonNoteTag     Reason = "note_tag" // a note ending like a holder's tag, "(@name)"
)

// Reasons of moves on a plan that several agents work on: a step another agent holds; a
// stale move of a step that changed meanwhile; a stale move after the list of steps changed.
const (
	ReasonStepHeld     Reason = "step_held"
	ReasonStepMoved    Reason = "step_moved"
	ReasonStepChanged  Reason = "step_changed" // step_moved when the history does not say by whom
	ReasonStepsChanged Reason = "steps_changed"
	// No step is pending, so there is no next step to take.
	ReasonNoPendingStep Reason = "no_pending_step"
)
