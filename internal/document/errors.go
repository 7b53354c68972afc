package document

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/einoplan/plan/api"
)

// The error and its codes, declared in package api.
type (
	Error = api.Error
	Code  = api.Code
)

// The codes of an Error.
const (
	CodeInvalidArgument   = api.CodeInvalidArgument
	CodeNotFound          = api.CodeNotFound
	CodeRevisionConflict  = api.CodeRevisionConflict
	CodeTooLarge          = api.CodeTooLarge
	CodeCorrupt           = api.CodeCorrupt
	CodeToolNotAvailable  = api.CodeToolNotAvailable
	CodeIllegalTransition = api.CodeIllegalTransition
	CodeBackendError      = api.CodeBackendError
	CodeCanceled          = api.CodeCanceled
	CodeUnknownOutcome    = api.CodeUnknownOutcome
	CodeStepHeld          = api.CodeStepHeld
	CodeNotApproved       = api.CodeNotApproved
	CodeStepBlocked       = api.CodeStepBlocked
	CodeEvidenceRequired  = api.CodeEvidenceRequired
	CodeNotVerified       = api.CodeNotVerified
	CodeOverBudget        = api.CodeOverBudget
	CodeUnproven          = api.CodeUnproven
	CodeRolledBack        = api.CodeRolledBack
	CodeCommentsOpen      = api.CodeCommentsOpen
)

// CodeOf returns the Code of err if it is (or wraps) an *Error, and "" otherwise.
func CodeOf(err error) Code { return api.CodeOf(err) }

// The Store's names for the fields its errors concern: those of Update and StepMove. The
// tools show the model the names of their own parameters instead (storeFieldParams).
const (
	FieldIfRevision = "IfRevision"
	FieldContent    = "Content"
	FieldNote       = "Note"
)

// Fail returns e with its Message rendered from the facts.
func Fail(e Error) *Error {
	e.Message = RenderError(&e, factTexts[e.Reason])
	if e.Message == "" {
		e.Message = e.Reason
	}
	return &e
}

// RenderError fills a text's placeholders ({name}, {current}, ...) with e's facts.
func RenderError(e *Error, text string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	return strings.NewReplacer(
		"{name}", QuoteForMessage(e.Name),
		"{field}", e.Field,
		"{value}", QuoteForMessage(e.Value),
		"{path}", QuoteForMessage(e.Path),
		"{current}", strconv.FormatInt(e.CurrentRevision, 10),
		"{rev}", strconv.FormatInt(e.Revision, 10),
		"{size}", strconv.FormatInt(e.Size, 10),
		"{limit}", strconv.FormatInt(e.Limit, 10),
		"{step}", strconv.Itoa(e.Step),
		"{steps}", strconv.Itoa(e.Steps),
		"{from}", string(e.From),
		"{to}", string(e.To),
		"{agent}", QuoteForMessage(e.Agent),
		"{waits}", FormatSteps(e.Waits),
		"{said}", e.Value, // unquoted: what a host's check said (Config.Verify)
	).Replace(text)
}

// QuoteForMessage quotes s for an error message, bounded so a hostile name cannot bloat it.
func QuoteForMessage(s string) string {
	if len(s) > 80 {
		s = TruncateUTF8(s, 80) + "..."
	}
	return fmt.Sprintf("%q", s)
}

// FormatSteps writes step numbers as "2, 3".
func FormatSteps(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

// The reasons, grouped by code.
const (
	ReasonArgsNotObject     = "args_not_object"
	ReasonArgsNotJSON       = "args_not_json"
	ReasonArgsTooLarge      = "args_too_large"  // over the bound, for a tool that takes a plan body
	ReasonArgsOverLimit     = "args_over_limit" // over the bound, for a tool that takes none
	ReasonRequired          = "required"
	ReasonNotString         = "not_string"
	ReasonNotInteger        = "not_integer"
	ReasonEmpty             = "empty"
	ReasonNotUTF8           = "not_utf8"
	ReasonTooLong           = "too_long"
	reasonNameInvalid       = "name_invalid"
	ReasonPathUnusable      = "path_unusable"
	ReasonPathEscapes       = "path_escapes"
	ReasonPathRelative      = "path_relative"
	ReasonPathInPlans       = "path_in_plans"
	ReasonWorkspaceWrite    = "workspace_write"
	ReasonWorkspaceRead     = "workspace_read"
	ReasonNeedsContent      = "needs_content"
	ReasonRevisionNegative  = "revision_negative"
	ReasonDeleteCreateOnly  = "delete_create_only"
	ReasonStepNumber        = "step_number"
	reasonStepMissing       = "step_missing"
	reasonStepStateUnknown  = "step_state_unknown"
	reasonNoteMultiline     = "note_multiline"
	ReasonGoalInvalid       = "goal_invalid"
	ReasonNoPlan            = "no_plan"
	ReasonNoPlanGuarded     = "no_plan_guarded"
	ReasonNoRevision        = "no_revision"
	ReasonNoFile            = "no_file"
	ReasonExists            = "exists"
	ReasonStale             = "stale"
	ReasonContentTooLarge   = "content_too_large"
	ReasonStoredTooLarge    = "stored_too_large"
	ReasonFileTooLarge      = "file_too_large"
	reasonUndecodable       = "undecodable"
	ReasonNotPlanFile       = "not_plan_file"
	ReasonRevisionExhausted = "revision_exhausted"
	reasonSameState         = "same_state"
	reasonInProgressOnly    = "in_progress_only"
	reasonFinalState        = "final_state"
	ReasonOrchestratorOnly  = "orchestrator_only"
	ReasonStorage           = "storage"
	ReasonContention        = "contention"
	ReasonCanceled          = "canceled"
	ReasonUnknownOutcome    = "unknown_outcome"
)

// Reasons of not_found for a kept revision the SHA-256 chain does not prove (history.go).
const (
	ReasonRevisionMismatch     = "revision_mismatch"     // its entry does not match the SHA-256 naming it
	ReasonRevisionUnverifiable = "revision_unverifiable" // kept under a CRC-32C by an earlier release
)

// ReasonRolledBack: the plan file is older than the revision the Store's mark records
// (rollback_mark.go in the engine): a file put back by hand, never honoured.
const ReasonRolledBack = "rolled_back"

// ReasonPutBackOrInterrupted: a plan nobody governs whose history keeps its very file as
// replaced, on a Backend that keeps that entry just before the write: put back by one
// revision, or a write interrupted by a crash (rollback_history.go in the engine).
const ReasonPutBackOrInterrupted = "put_back_or_interrupted"

// Reasons of revision_conflict and step moves that a person or an expired hold caused.
const (
	reasonPersonChanged = "person_changed" // a person changed the plan since the agent's revision
	ReasonHoldTaken     = "hold_taken"     // the mover's hold expired and another took the step
)

// factTexts states each failure in English with its facts and without advice: what
// Error.Message says to logs and host programs.
var factTexts = map[string]string{
	reasonBudgetInvalid:            "budget {value} is not a budget such as \"200k tokens\", \"1h\" or \"200k tokens, 1h\"",
	ReasonLeanWorker:               "this agent only takes and finishes steps: its plan tools are update_plan_step and read_plan",
	ReasonNoHeldStep:               "no step is named and {agent} holds no step in progress of plan {name}",
	ReasonHeldSteps:                "no step is named and {agent} holds {size} steps in progress of plan {name}: {said}",
	ReasonPlanUnnamed:              "no plan is named and {size} plans could be meant: {said}",
	ReasonEvidenceState:            "evidence is given with a move to {to}; only completed, failed or skipped take evidence",
	ReasonNextState:                "next is given with a move to {to}; only completed, failed or skipped take the next step with them",
	reasonEvidenceForm:             "the evidence has control characters or contains \" — evidence: \", \" — cost: \" or \" — observed: \"",
	reasonNoteProof:                "the note {value} would read as evidence or a cost (\" — evidence: \", \" — cost: \")",
	ReasonEvidenceRequired:         "step {step} of plan {name} cannot be completed without evidence",
	ReasonNotVerified:              "the completion of step {step} of plan {name} was not verified: {said}",
	ReasonReviewOwn:                "step {step} of plan {name} awaits review of {agent}'s work, and only another agent or a person completes it",
	ReasonCostInvalid:              "a step's cost has a negative or too large count, or comes with a move to {to}",
	ReasonHoldTaken:                "the hold of the mover on step {step} expired and {agent} took the step at revision {rev}; it is {from} now",
	reasonPersonChanged:            "plan {name} was changed by a person ({agent}) since revision {rev}; it is at revision {current}",
	ReasonArgsNotObject:            "the arguments are not a JSON object",
	ReasonArgsNotJSON:              "the arguments are not valid JSON",
	ReasonArgsTooLarge:             "the arguments are {size} bytes, over the {limit}-byte limit",
	ReasonArgsOverLimit:            "the arguments are {size} bytes, over the {limit}-byte limit",
	ReasonRequired:                 "{field} is missing",
	ReasonNotString:                "{field} is not a string",
	ReasonNotInteger:               "{field} is not an integer",
	ReasonEmpty:                    "{field} is empty",
	ReasonNotUTF8:                  "{field} is not valid UTF-8",
	ReasonTooLong:                  "{field} is {size} bytes, over the {limit}-byte limit",
	reasonNameInvalid:              "name {value} is not a plan name (lowercase a-z, 0-9, '-' and '_', starting with a letter or digit)",
	ReasonPathUnusable:             "{field} is not a usable file path",
	ReasonPathEscapes:              "path {path} leaves the workspace",
	ReasonPathRelative:             "path {path} is relative",
	ReasonPathInPlans:              "path {path} is inside the plans folder {value}",
	ReasonWorkspaceWrite:           "cannot write {path} in the workspace",
	ReasonWorkspaceRead:            "cannot read {path} from the workspace",
	ReasonNeedsContent:             "plan {name} does not exist and no content was given",
	ReasonRevisionNegative:         "revision {rev} is negative",
	ReasonDeleteCreateOnly:         "revision 0 (create only) cannot guard a delete",
	ReasonStepNumber:               "step {step} is not a step number",
	reasonStepMissing:              "there is no step {step}; the plan has {steps} checklist steps",
	reasonStepStateUnknown:         "{value} is not a step state (pending, in_progress, completed, failed, skipped)",
	reasonNoteMultiline:            "the note has line breaks",
	ReasonGoalInvalid:              "the goal is empty, not UTF-8 or over {limit} bytes",
	ReasonNoPlan:                   "no plan named {name}",
	ReasonNoPlanGuarded:            "no plan named {name} at revision {rev}",
	ReasonNoRevision:               "revision {rev} of plan {name} is not kept; it is at revision {current}",
	ReasonNoFile:                   "no file at {path}",
	ReasonExists:                   "plan {name} already exists, at revision {current}",
	ReasonStale:                    "plan {name} is at revision {current}, not {rev}",
	ReasonContentTooLarge:          "the content is {size} bytes, over the {limit}-byte limit",
	ReasonStoredTooLarge:           "the stored file {path} is over the {limit}-byte limit",
	ReasonFileTooLarge:             "file {path} is over the {limit}-byte limit",
	reasonUndecodable:              "plan {name} cannot be decoded",
	ReasonNotPlanFile:              "the entry {path} is not a plan file (a link, a folder or a special file)",
	ReasonRevisionExhausted:        "plan {name} cannot get a revision past {current}",
	reasonSameState:                "step {step} is already {from}",
	reasonInProgressOnly:           "step {step} is in_progress and can only become completed or failed, not {to}",
	reasonFinalState:               "step {step} is {from}, a final state, and cannot become {to}",
	ReasonOrchestratorOnly:         "this tool is for the orchestrator only",
	ReasonStorage:                  "the plan storage failed",
	ReasonContention:               "too many concurrent writers on {name}",
	ReasonCanceled:                 "the request was canceled before anything was written",
	ReasonUnknownOutcome:           "the plan storage failed during a write to {path}, and whether it was done is unknown",
	ReasonListLimit:                "the limit is out of range (1 to {limit})",
	ReasonPlansOffLimits:           "{field} {path} is inside the plans folder {value} or is an approval key",
	ReasonSearchCoversPlans:        "{field} {path} holds the plans folder {value} or an approval key",
	ReasonNotBoolean:               "{field} is not a boolean",
	reasonNoteTag:                  "the note {value} ends like a holder's tag (@name)",
	reasonNoteAfter:                "the note {value} would change which steps step {step} waits for",
	reasonNoteUses:                 "the note {value} would change which tools step {step} may use",
	reasonNoteAsks:                 "the note {value} would change whether step {step} asks for review or its budget",
	reasonNoteProofTools:           "the note {value} would change which tools prove step {step} done",
	reasonObservedInText:           "step {step} of the body carries an observation mark (\" — observed: \") that only a step move writes",
	ReasonUnproven:                 "step {step} of plan {name} is not proven: the host saw no passing call of {value} under its current hold after its last change",
	ReasonFailAwaited:              "step {step} of plan {name} cannot be marked failed by an agent that does not hold it: steps {waits} wait for it",
	reasonStepHeld:                 "step {step} is held by {agent}",
	ReasonNoPendingStep:            "no step of plan {name} is pending",
	ReasonStepMoved:                "step {step} changed since revision {rev}: it is {from} now (by {agent})",
	ReasonStepChanged:              "step {step} changed since revision {rev}: it is {from} now",
	ReasonStepsChanged:             "the steps of plan {name} were added, removed, reworded or reordered since revision {rev}; it is at revision {current}",
	reasonAfterUnknown:             "step {step} waits for step {value}, which does not exist; the plan has {steps} checklist steps",
	reasonAfterCycle:               "steps {waits} wait for each other in a cycle",
	ReasonStepBlocked:              "step {step} waits for steps {waits}, which are not completed or skipped",
	ReasonSkipAwaited:              "step {step} of plan {name} cannot be skipped by an agent: the plan requires approval and steps {waits} wait for it",
	ReasonNoReadyStep:              "no pending step of plan {name} is ready: they wait for steps {waits}, which are not completed or skipped",
	ReasonFileNotUTF8:              "file {path} is not valid UTF-8 text",
	ReasonFileEmpty:                "file {path} is empty",
	ReasonNotApproved:              "plan {name} is not approved",
	ReasonApprovalStale:            "plan {name} changed from revision {rev} to {current} while it was reviewed; nothing was approved",
	ReasonNoDecision:               "the approval of plan {name} was resumed without a decision; nothing was approved",
	ReasonApprovalOrchestratorOnly: "request_plan_approval is for the orchestrator only",
	ReasonUnknownArgument:          "{field} is not an argument of this tool, which takes {value}",
	ReasonConflictingAliases:       "{value} all stand for {field} and have different values",
	ReasonRepeatedArgument:         "{field} is given more than once, with different values",
	ReasonStepIndex:                "{field} may count steps from 0; step counts them from 1",
	// A kept revision the SHA-256 chain from the plan file does not prove (history.go).
	ReasonRevisionMismatch:     "the kept copy of revision {rev} of plan {name} (or of a revision after it) does not match the SHA-256 its next revision names, so it is not served; the plan is at revision {current}",
	ReasonRevisionUnverifiable: "revision {rev} of plan {name} was kept by an earlier release under a CRC-32C, which cannot prove it, so it is not served until its history is converted; the plan is at revision {current}",
	reasonNewerFormat:          "plan {name} is stored in file format {value}, newer than this release writes, so it is not changed; use the release that wrote it",
	ReasonRolledBack:           "the file of plan {name} is revision {rev}, older than revision {current} the Store wrote last (or than its deletion): it was put back by hand, so it is not served",
	ReasonPutBackOrInterrupted: "the history of plan {name} keeps its file, revision {rev}, as replaced by revision {current}: an old copy was put back by hand, or a write of revision {current} was interrupted, so it is not served until a person deletes it",
	ReasonCommentsOpen:         "plan {name} has {size} open comments of people (at revision {current}): each must be answered or resolved before it is put to a person again",
	reasonCommentsFull:         "plan {name} keeps {limit} comments and all {size} are open: answer or resolve one first",
	reasonCommentUnknown:       "plan {name} has no comment {value}",
	reasonCommentByAgent:       "only a person comments on plan {name} or resolves its comments, not an agent's tool call",
}

// Reasons of approvals: a move of a plan that is not approved; a decision on a revision
// that is no longer current; a resume that carried no decision; a sub-agent asking.
const (
	ReasonNotApproved              = "not_approved"
	ReasonApprovalStale            = "approval_stale"
	ReasonNoDecision               = "no_decision"
	ReasonApprovalOrchestratorOnly = "approval_orchestrator_only"
)

// More reasons: a list_plans limit out of range; a workspace file that is not UTF-8 text, or
// holds nothing but white space.
const (
	ReasonListLimit   = "list_limit"
	ReasonFileNotUTF8 = "file_not_utf8"
	ReasonFileEmpty   = "file_empty"
	ReasonNotBoolean  = "not_boolean"
	reasonNoteTag     = "note_tag"      // a note ending like a holder's tag, "(@name)"
	reasonNoteAfter   = "note_after"    // a note that would read as the step's "(after …)"
	reasonNoteUses    = "note_uses"     // a note that would change the step's "(uses …)"
	reasonNoteAsks    = "note_asks"     // a note that would change the step's "(review)" or "(budget …)"
	reasonHoldInText  = "claim_in_text" // a body written whole adds a holder's tag to a step
	ReasonSetAside    = "set_aside"     // something the Store did not write stood where its history goes
)

// Reasons of the file tools' guard (fs_guard.go): a path in a plans folder or at an approval
// key; a search of a folder that holds one.
const (
	ReasonPlansOffLimits    = "plans_off_limits"
	ReasonSearchCoversPlans = "search_covers_plans"
)

// Reasons of moves on a plan that several agents work on: a step another agent holds; a
// stale move of a step that changed meanwhile; a stale move after the list of steps changed.
const (
	reasonStepHeld     = "step_held"
	ReasonStepMoved    = "step_moved"
	ReasonStepChanged  = "step_changed" // step_moved when the history does not say by whom
	ReasonStepsChanged = "steps_changed"
	// No step is pending, so there is no next step to take.
	ReasonNoPendingStep = "no_pending_step"
)

// Reasons of arguments a tool cannot read with one meaning: an argument it does not take and
// that is no alias of one it takes; two spellings of one argument with different values; one
// key given twice with different values; a step named by an index that may count from 0.
const (
	ReasonUnknownArgument    = "unknown_argument"
	ReasonConflictingAliases = "conflicting_aliases"
	ReasonRepeatedArgument   = "repeated_argument"
	ReasonStepIndex          = "step_index"
)

// Reasons of prerequisites ("(after 2, 3)", graph.go): a body naming a step it does not have;
// a body whose steps wait for each other in a cycle; a move of a step whose prerequisites are
// not done; no pending step ready to take.
const (
	reasonAfterUnknown = "after_unknown"
	reasonAfterCycle   = "after_cycle"
	ReasonStepBlocked  = "step_blocked"
	ReasonNoReadyStep  = "no_ready_step"
	// An agent's skip of a step others wait for, under the approval requirement.
	ReasonSkipAwaited = "skip_awaited"
)

// Reasons of evidence and review: evidence on a move that finishes nothing, or that cannot
// be read back whole; a completion without evidence; one Config.Verify refused; an agent
// completing the review of its own work.
const (
	ReasonEvidenceState    = "evidence_state"
	ReasonNextState        = "next_state" // StepMove.Next on a move that finishes nothing
	reasonEvidenceForm     = "evidence_form"
	ReasonEvidenceRequired = "evidence_required"
	ReasonNotVerified      = "not_verified"
	ReasonReviewOwn        = "review_own"
	ReasonCostInvalid      = "cost_invalid"
	reasonNoteProof        = "note_proof" // a note that would read as the evidence or cost a move writes
)

// Reasons of "(proof …)" steps and of who finishes a step others wait for: a note that would
// change the step's "(proof …)"; a body written whole that adds an observation mark; an
// agent's completion the host saw no fresh passing call for; an agent marking failed a step
// it does not hold while others wait for it; a Config.Verify that panicked or did not answer
// in time.
const (
	reasonNoteProofTools = "note_proof_tools"
	reasonObservedInText = "observed_in_text"
	ReasonUnproven       = "unproven"
	ReasonFailAwaited    = "fail_awaited"
)

// Reasons of a plan budget that does not read, and of a lean worker (Config.LeanWorker)
// calling a plan tool it is not offered.
const (
	reasonBudgetInvalid = "budget_invalid"
	ReasonLeanWorker    = "lean_worker"
)

// reasonNewerFormat: a change of a plan whose file is of a format newer than formatVersion.
const reasonNewerFormat = "newer_format"

// Reasons of a step move that names no step, or a plan tool's call that names no plan, when
// the mover's holds (or the plans there are) do not say which one: it holds none, several.
const (
	ReasonNoHeldStep  = "no_held_step"
	ReasonHeldSteps   = "held_steps"
	ReasonPlanUnnamed = "plan_unnamed"
)
