package tools

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
)

// verifyCompletion runs the checks of a completion an agent asks for, before anything is
// written: RequireEvidence (CodeEvidenceRequired), a "(proof …)" step's fresh passing call
// (CodeUnproven, checked again by the move itself) and Verify (CodeNotVerified). It returns
// the step the move names (number, or for 0 the one the caller holds, read with the plan the
// checks read) and the revision the move must be guarded by (ifRevision itself when the call
// gave one), or nil when there is nothing to check.
func (env *ToolEnv) verifyCompletion(ctx context.Context, name string, number int, state document.StepState, evidence string, ifRevision *int64) (int, *int64, error) {
	if state != document.StepCompleted || number < 0 || !env.RequireEvidence && env.Verify == nil {
		return number, ifRevision, nil
	}
	p, err := env.Store.Get(ctx, name)
	if err != nil {
		return 0, nil, err
	}
	steps := document.StepsOf(p.Content)
	agent := document.HolderName(env.Agent(ctx))
	if number == 0 {
		if number, err = engine.HeldStep(p, steps, agent); err != nil {
			return 0, nil, err
		}
	}
	if number > len(steps) {
		return number, ifRevision, nil // the move names the missing step
	}
	st := steps[number-1]
	if st.State != document.StepPending && st.State != document.StepInProgress || st.Holder != "" && st.Holder != agent || st.AwaitingReview && document.SameAgent(st.DoneBy, agent) {
		return number, ifRevision, nil // the move refuses it, naming why
	}
	evidence = document.FoldEvidence(evidence)
	if evidence == "" {
		evidence = st.Evidence // a review's completion: the doer's evidence
	}
	if env.RequireEvidence && evidence == "" {
		return 0, nil, document.Fail(document.Error{Code: document.CodeEvidenceRequired, Reason: document.ReasonEvidenceRequired, Name: name, Step: number, CurrentRevision: p.Revision})
	}
	if env.Verify != nil {
		var observed []Observation
		if !st.AwaitingReview {
			observed = env.Store.Observed(name, number, agent)
			if _, ok := document.Proven(st, observed); len(st.Proof) > 0 && !ok {
				return 0, nil, document.Fail(document.Error{Code: document.CodeUnproven, Reason: document.ReasonUnproven, Name: name, Step: number, CurrentRevision: p.Revision,
					From: st.State, To: state, Value: strings.Join(st.Proof, ", ")})
			}
		}
		text, _ := document.SplitHolder(st.Text)
		c := Completion{Plan: name, Step: number, Text: text, Evidence: evidence, Agent: env.Agent(ctx), Revision: p.Revision, Observed: observed}
		if err := env.runVerify(ctx, c); err != nil {
			if ctx.Err() != nil {
				return 0, nil, document.Fail(document.Error{Code: document.CodeCanceled, Reason: document.ReasonCanceled, Err: ctx.Err()})
			}
			return 0, nil, document.Fail(document.Error{Code: document.CodeNotVerified, Reason: document.ReasonNotVerified, Name: name, Step: number, CurrentRevision: p.Revision, Value: env.verifierText(err)})
		}
	}
	if ifRevision == nil {
		rev := p.Revision
		ifRevision = &rev
	}
	return number, ifRevision, nil
}

// Observation is a tool call the host saw under a hold (document.Observation).
type Observation = document.Observation

// DefaultVerifyTimeout is how long a completion waits for Config.Verify when
// Config.VerifyTimeout is 0.
const DefaultVerifyTimeout = 2 * time.Minute

// The verifier's failures that are not its own words: it panicked, or did not answer in time.
var (
	errVerifierFailed  = errors.New("the verifier failed")
	errVerifierTimeout = errors.New("the verifier did not answer in time")
)

// runVerify is env.Verify(ctx, c) bounded by VerifyTimeout (none when negative): a verifier
// that panics is errVerifierFailed, one that does not return in time errVerifierTimeout, so
// neither ends the run nor keeps the step's holder waiting. A verifier that outlives its
// deadline runs on with its context canceled; its answer is dropped.
func (env *ToolEnv) runVerify(ctx context.Context, c Completion) error {
	timeout := env.VerifyTimeout
	if timeout == 0 {
		timeout = DefaultVerifyTimeout
	}
	call := func(ctx context.Context) (err error) {
		defer func() {
			if recover() != nil {
				err = errVerifierFailed
			}
		}()
		return env.Verify(ctx, c)
	}
	if timeout < 0 {
		return call(ctx)
	}
	bounded, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(bounded) }()
	select {
	case err := <-done:
		if err != nil && bounded.Err() != nil && ctx.Err() == nil {
			return errVerifierTimeout // it gave up on its deadline
		}
		return err
	case <-bounded.Done():
		return errVerifierTimeout
	}
}

// maxVerifierText bounds the verifier's words a model reads.
const maxVerifierText = 500

// verifierText is what Config.Verify's error says, on one line and at most 500 bytes; for a
// verifier that failed or did not answer, the model's words for it.
func (env *ToolEnv) verifierText(err error) string {
	switch {
	case errors.Is(err, errVerifierFailed) && env.Texts["verify.failed"] != "":
		return env.Texts["verify.failed"]
	case errors.Is(err, errVerifierTimeout) && env.Texts["verify.timeout"] != "":
		return env.Texts["verify.timeout"]
	}
	t := document.FoldEvidence(err.Error())
	if len(t) > maxVerifierText {
		t = document.TruncateUTF8(t, maxVerifierText) + "…"
	}
	return t
}

// reviewNote is what a step result tells the model of a step its completion left awaiting
// review; "" for any other step.
func (env *ToolEnv) reviewNote(s document.Step) string {
	if !s.AwaitingReview {
		return ""
	}
	e := document.Error{Step: s.Number}
	return document.RenderError(&e, env.Texts["step.awaiting_review"])
}

// proofNote is what a step result tells the model of a "(proof …)" step it holds: how it
// completes; "" for any other step.
func (env *ToolEnv) proofNote(s document.Step) string {
	if len(s.Proof) == 0 || s.State != document.StepInProgress || s.Holder == "" {
		return ""
	}
	e := document.Error{Step: s.Number, Value: strings.Join(s.Proof, ", ")}
	return document.RenderError(&e, env.Texts["step.proof"])
}
