package tools

import (
	"errors"
	"strings"
	"time"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
)

type ErrorBody struct {
	Code            document.Code `json:"code"`
	Message         string        `json:"message"`
	CurrentRevision int64         `json:"current_revision,omitempty"`
	NextStep        *nextStep     `json:"next_step,omitempty"`
	Waits           []int         `json:"waits,omitempty"` // the steps a blocked step waits for
	// ExpiresAt is when the hold that refused the move runs out unless renewed (RFC 3339).
	ExpiresAt string `json:"expires_at,omitempty"`
	// Comments are the open comments that refused a request for approval (comments_open).
	Comments []document.Comment `json:"comments,omitempty"`
}

// ErrorResult is the tool result for err: its code, and a message in the model's language
// that says what to do next, rendered from the error's reason and facts. An error that is
// not an *Error is a storage failure.
func (env *ToolEnv) ErrorResult(err error) string {
	var pe *document.Error
	if !errors.As(err, &pe) {
		pe = engine.BackendError("complete the request", err)
	}
	body := ErrorBody{Code: pe.Code, Message: env.ErrorMessage(pe), CurrentRevision: pe.CurrentRevision, NextStep: shortStep(pe.Next), Waits: pe.Waits, Comments: pe.Comments}
	if !pe.Expires.IsZero() {
		body.Message += env.leaseAdvice(pe.Expires)
		body.ExpiresAt = pe.Expires.UTC().Format(time.RFC3339)
	}
	s, _ := ResultAPI.MarshalToString(map[string]ErrorBody{"error": body})
	return s
}

// ErrorMessage renders what the model reads for e: the text "err.<reason>" with e's facts,
// a JSON type named in the model's language, or e's own English message for a failure no
// text names.
func (env *ToolEnv) ErrorMessage(e *document.Error) string {
	text, ok := env.Texts["err."+e.Reason]
	if !ok || e.Reason == "" {
		return e.Message
	}
	if param, ok := storeFieldParams[e.Field]; ok {
		shown := *e
		shown.Field = param.Name
		e = &shown
	}
	if kind, ok := env.Texts["kind."+e.Value]; ok && (e.Reason == document.ReasonNotString || e.Reason == document.ReasonNotInteger || e.Reason == document.ReasonNotBoolean) {
		text = strings.ReplaceAll(text, "{value}", kind)
	}
	return document.RenderError(e, text)
}

// storeFieldParams names the tool parameter that carries each field a Store error names.
var storeFieldParams = map[string]param{document.FieldIfRevision: pRevision, document.FieldContent: pContent, document.FieldNote: pNote}

// leaseAdvice is what the model reads after a refusal caused by a hold that runs out at
// end: when, and what to do then.
func (env *ToolEnv) leaseAdvice(end time.Time) string {
	in := end.Sub(env.Store.Now()).Round(time.Second)
	if in < time.Second {
		in = time.Second
	}
	return strings.NewReplacer("{at}", end.UTC().Format(time.RFC3339), "{in}", in.String()).Replace(env.Texts["lease.until"])
}
