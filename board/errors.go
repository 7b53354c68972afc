package board

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/einoplan/plan"
)

// apiError is the body of every refusal: {"error": {...}}. Code is a plan.Code for what the
// Store refused, or one of the board's own codes (read_only, unauthenticated, cross_site,
// bad_request, ...); the page words each code itself, in the reader's language, from the
// revisions given.
type apiError struct {
	status          int
	Code            string `json:"code"`
	Message         string `json:"message"`
	Revision        int64  `json:"revision,omitempty"`
	CurrentRevision int64  `json:"current_revision,omitempty"`
	Holder          string `json:"holder,omitempty"`
}

func (e *apiError) Error() string { return e.Message }

func badRequest(msg string) *apiError {
	return &apiError{status: http.StatusBadRequest, Code: "bad_request", Message: msg}
}

// storeError turns an error of the Store into the refusal the API sends.
func storeError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var pe *plan.Error
	if !errors.As(err, &pe) {
		return &apiError{status: http.StatusInternalServerError, Code: string(plan.CodeBackendError), Message: "the plan store failed"}
	}
	out := &apiError{status: statusOf(pe.Code), Code: string(pe.Code), Message: pe.Error(),
		Revision: pe.Revision, CurrentRevision: pe.CurrentRevision, Holder: pe.Agent}
	return out
}

func statusOf(c plan.Code) int {
	switch c {
	case plan.CodeInvalidArgument:
		return http.StatusBadRequest
	case plan.CodeNotFound:
		return http.StatusNotFound
	case plan.CodeRevisionConflict, plan.CodeStepHeld, plan.CodeIllegalTransition, plan.CodeNotApproved, plan.CodeRolledBack, plan.CodeCommentsOpen:
		return http.StatusConflict
	case plan.CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case plan.CodeCanceled, plan.CodeBackendError, plan.CodeUnknownOutcome:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// conflict is the refusal of an action whose page showed revision seen of a plan that is
// now at current.
func conflict(name string, seen, current int64) *apiError {
	return &apiError{status: http.StatusConflict, Code: string(plan.CodeRevisionConflict), Revision: seen, CurrentRevision: current,
		Message: "plan " + name + " changed since the page showed it; nothing was changed: review the current revision and try again"}
}

func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, struct {
		Error *apiError `json:"error"`
	}{e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":{"code":"internal","message":"the answer could not be encoded"}}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
