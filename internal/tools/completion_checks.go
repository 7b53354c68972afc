package tools

import (
	"context"

	"github.com/einoplan/plan/internal/document"
)

// verifyCompletion runs the checks of a completion an agent asks for, before anything is
// written: RequireEvidence (CodeEvidenceRequired) and Verify (CodeNotVerified). It returns
// the revision the move must be guarded by (ifRevision itself when the call gave one), or
// nil when there is nothing to check.
func (env *ToolEnv) verifyCompletion(ctx context.Context, name string, number int, state document.StepState, evidence string, ifRevision *int64) (*int64, error) {
	if state != document.StepCompleted || number < 1 || !env.RequireEvidence && env.Verify == nil {
		return ifRevision, nil
	}
	p, err := env.Store.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	steps := document.StepsOf(p.Content)
	if number > len(steps) {
		return ifRevision, nil // the move names the missing step
	}
	st := steps[number-1]
	agent := document.HolderName(env.Agent(ctx))
	if st.State != document.StepPending && st.State != document.StepInProgress || st.Holder != "" && st.Holder != agent || st.AwaitingReview && st.DoneBy == agent && agent != "" {
		return ifRevision, nil // the move refuses it, naming why
	}
	evidence = document.FoldEvidence(evidence)
	if evidence == "" {
		evidence = st.Evidence // a review's completion: the doer's evidence
	}
	if env.RequireEvidence && evidence == "" {
		return nil, document.Fail(document.Error{Code: document.CodeEvidenceRequired, Reason: document.ReasonEvidenceRequired, Name: name, Step: number, CurrentRevision: p.Revision})
	}
	if env.Verify != nil {
		text, _ := document.SplitHolder(st.Text)
		c := Completion{Plan: name, Step: number, Text: text, Evidence: evidence, Agent: env.Agent(ctx), Revision: p.Revision}
		if err := env.Verify(ctx, c); err != nil {
			return nil, document.Fail(document.Error{Code: document.CodeNotVerified, Reason: document.ReasonNotVerified, Name: name, Step: number, CurrentRevision: p.Revision, Value: verifierText(err)})
		}
	}
	if ifRevision == nil {
		rev := p.Revision
		ifRevision = &rev
	}
	return ifRevision, nil
}

// maxVerifierText bounds the verifier's words a model reads.
const maxVerifierText = 500

// verifierText is what Config.Verify's error says, on one line and at most 500 bytes.
func verifierText(err error) string {
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
