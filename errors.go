package plan

import (
	"errors"
	"fmt"
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
)

// Error is the one error type the Store and the tools return. Message says what to do next;
// CurrentRevision, when non-zero, is the plan's revision at the time of the failure.
type Error struct {
	Code            Code
	Message         string
	CurrentRevision int64
	Err             error // underlying cause, never shown to a model
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

func newError(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
