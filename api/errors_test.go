package api

import (
	"errors"
	"fmt"
	"testing"
)

// An Error reads as its code and message, shows its cause, and is found through wrapping.
func TestAnErrorCarriesItsCodeThroughWrapping(t *testing.T) {
	cause := errors.New("disk full")
	e := &Error{Code: CodeBackendError, Message: "the plan storage failed", Err: cause}
	if got := e.Error(); got != "backend_error: the plan storage failed: disk full" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(e, cause) {
		t.Error("errors.Is does not reach the cause")
	}
	wrapped := fmt.Errorf("put: %w", e)
	if CodeOf(wrapped) != CodeBackendError {
		t.Errorf("CodeOf(wrapped) = %q", CodeOf(wrapped))
	}
	if CodeOf(cause) != "" || CodeOf(nil) != "" {
		t.Error("an error that is no Error has no code")
	}
	if got := (&Error{Code: CodeNotFound, Message: "no plan named \"x\""}).Error(); got != `not_found: no plan named "x"` {
		t.Errorf("without a cause: %q", got)
	}
}
