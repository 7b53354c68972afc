package tools

import (
	"context"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
)

func runWritePlan(ctx context.Context, env *ToolEnv, a args) (any, error) {
	f := a.fields()
	name, content := f.str(pName), f.str(pContent)
	u := f.update(name)
	if f.err != nil {
		return nil, f.err
	}
	return putPlan(ctx, env, u, content)
}

// putPlan writes a plan's new body for write_plan and update_plan_from_file.
func putPlan(ctx context.Context, env *ToolEnv, u engine.Update, content string) (any, error) {
	u.Content = &content
	p, err := env.Store.Put(ctx, u)
	if err != nil {
		return nil, err
	}
	return newWriteResult(p), nil
}

func runReadPlan(ctx context.Context, env *ToolEnv, a args) (any, error) {
	f := a.fields()
	name, since := f.str(pName), f.integer(pSince)
	if f.err != nil {
		return nil, f.err
	}
	// A since_revision that is not kept (pruned, never existed, negative) gets the whole plan;
	// one kept but not verified gets it with a note saying so.
	var p, old *document.Plan
	var unverified *document.Error
	var err error
	if since != nil {
		p, old, unverified, err = env.Store.ChangesSince(ctx, name, *since)
	} else {
		p, err = env.Store.Get(ctx, name)
	}
	if err != nil {
		return nil, err
	}
	if old != nil {
		out := newChangesResult(p, old)
		out.Comments, out.CommentsAdvice = env.openComments(p)
		return out, nil
	}
	if unverified != nil {
		out := readResult{Summary: document.Summarize(p), Approved: env.unapproved(p), Content: p.Content, Note: env.ErrorMessage(unverified)}
		out.Comments, out.CommentsAdvice = env.openComments(p)
		return out, nil
	}
	if text, ok := env.reads.get(p); ok {
		return text, nil
	}
	out := readResult{Summary: document.Summarize(p), Approved: env.unapproved(p), Cost: api.TotalCost(document.StepsOf(p.Content)), Content: p.Content}
	out.Comments, out.CommentsAdvice = env.openComments(p)
	text, err := ResultAPI.MarshalToString(out)
	if err != nil {
		return nil, engine.BackendError("encode the result", err)
	}
	env.reads.put(p, text)
	return text, nil
}

// getNamed loads the plan a call names.
func getNamed(ctx context.Context, env *ToolEnv, a args) (*document.Plan, error) {
	name, err := a.str(pName)
	if err != nil {
		return nil, err
	}
	return env.Store.Get(ctx, name)
}

func runDeletePlan(ctx context.Context, env *ToolEnv, a args) (any, error) {
	f := a.fields()
	name, rev := f.str(pName), f.integer(pRevision)
	if f.err != nil {
		return nil, f.err
	}
	last, err := env.Store.Delete(ctx, name, rev)
	if err != nil {
		return nil, err
	}
	return deleteResult{Deleted: name, Revision: last}, nil
}

func runSetPlanStatus(ctx context.Context, env *ToolEnv, a args) (any, error) {
	f := a.fields()
	name, status, rev := f.str(pName), f.str(pNewStatus), f.integer(pRevision)
	if f.err != nil {
		return nil, f.err
	}
	p, err := env.Store.SetStatus(ctx, name, status, rev)
	if err != nil {
		return nil, err
	}
	return statusResult{Name: p.Name, Status: p.Status, Revision: p.Revision}, nil
}

func runGetPlanStatus(ctx context.Context, env *ToolEnv, a args) (any, error) {
	p, err := getNamed(ctx, env, a)
	if err != nil {
		return nil, err
	}
	sum := document.Summarize(p)
	out := statusResult{Name: p.Name, Status: p.Status, Revision: p.Revision, Progress: &sum.Progress, NextStep: shortStep(NextPending(sum)),
		Approval: p.Approval, Approved: env.unapproved(p)}
	if cur := sum.CurrentStep; cur != nil && cur.State == document.StepInProgress {
		out.CurrentStep = cur
	}
	steps := document.StepsOf(p.Content)
	out.Cost, out.StepCosts = api.TotalCost(steps), stepCostsOf(steps)
	out.Budget = env.budgetLeft(ctx, p)
	return out, nil
}

func runUpdatePlanStep(ctx context.Context, env *ToolEnv, a args) (any, error) {
	f := a.fields()
	name, number, stateText := f.str(pStepPlan), f.integer(pStep), f.str(pStepState)
	note, rev, takeover := f.str(pNote), f.integer(pRevision), f.boolean(pTakeover)
	evidence, next := f.str(pEvidence), f.boolean(pNext)
	if f.err != nil {
		return nil, f.err
	}
	if stateText == "" {
		if !next {
			return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonRequired, Field: pStepState.Name})
		}
		stateText = string(document.StepCompleted)
	}
	state, err := document.ParseStepState(stateText)
	if err != nil {
		return nil, err
	}
	if number == nil && !finishing(state) && state != document.StepInProgress {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonRequired, Field: pStep.Name})
	}
	if number != nil && (*number < 1 || *number > 1<<20) {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonStepNumber, Name: name, Field: pStep.Name, Step: int(min(max(*number, -1), 1<<21))})
	}
	if name == "" {
		if name, err = env.planOfMove(ctx); err != nil {
			return nil, err
		}
	}
	at := 0 // in_progress: the next free step; finishing: the one the caller holds
	switch {
	case number != nil:
		at = int(*number)
	case finishing(state):
		at = env.runHeldStep(ctx, name)
	}
	if at, rev, err = env.verifyCompletion(ctx, name, at, state, evidence, rev); err != nil {
		return nil, err
	}
	cost := env.stepCost(ctx, name, at, state)
	p, moved, took, err := env.Store.MoveStepTaking(ctx, engine.StepMove{Name: name, Step: at, State: state, Note: note, Evidence: evidence, Cost: cost, IfRevision: rev, By: document.ActorOf(ctx), Takeover: takeover, Next: next})
	if err != nil {
		return nil, err
	}
	steps := document.StepsOf(p.Content)
	if !next {
		env.measured(ctx, p, moved, cost)
		return stepResult{Revision: p.Revision, Step: moved.Number, Holder: othersHold(ctx, moved), Done: doneOf(steps),
			Review: env.reviewNote(moved), Proof: env.proofNote(moved), Budget: env.budgetLeft(ctx, p)}, nil
	}
	return env.rodeOn(ctx, p, steps, moved, took, cost), nil
}

// finishing reports whether a move to st finishes a step: completed, failed or skipped.
func finishing(st document.StepState) bool {
	return st == document.StepCompleted || st == document.StepFailed || st == document.StepSkipped
}

// othersHold is the holder of a step when it is not the agent the call acts as: the model
// knows its own holds.
func othersHold(ctx context.Context, s document.Step) string {
	if s.Holder == document.HolderName(document.ActorOf(ctx)) {
		return ""
	}
	return s.Holder
}

// rodeOn is the result of a move with next: the step finished (fin) and the step taken
// (took; Number 0 when none was ready). It names only the step held now (the caller's) and
// the progress: the digest carries the steps' texts.
func (env *ToolEnv) rodeOn(ctx context.Context, p *document.Plan, steps []document.Step, fin, took document.Step, cost *document.StepCost) stepResult {
	env.measured(ctx, p, fin, cost)
	out := stepResult{Revision: p.Revision, Step: took.Number, Done: doneOf(steps), Review: env.reviewNote(fin)}
	if took.Number == 0 {
		out.Step, out.Next = fin.Number, env.Texts["step.none_ready"]
		return out
	}
	env.measured(ctx, p, took, nil)
	out.Proof = env.proofNote(took)
	out.Budget = env.budgetLeft(ctx, p)
	return out
}

// NextPending is the first pending step of a summary, nil when none is pending.
func NextPending(p document.Summary) *document.Step {
	if p.NextStep != nil {
		return p.NextStep
	}
	if p.CurrentStep != nil && p.CurrentStep.State == document.StepPending {
		return p.CurrentStep
	}
	return nil
}

// unapproved is the "approved": false that read_plan and get_plan_status show for a plan
// that needs an approval and has none; nil (not shown) otherwise.
func (env *ToolEnv) unapproved(p *document.Plan) *bool {
	if !env.RequireApproval || p.Approval != nil {
		return nil
	}
	no := false
	return &no
}
