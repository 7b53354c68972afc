package tools

import (
	"context"
	"strings"
	"time"

	"github.com/einoplan/plan/internal/document"
)

// stepCost is what a move of step at of plan name to state writes as its cost: what the
// call's run measured while it held the step, for a move out of in_progress; nil otherwise.
func (env *ToolEnv) stepCost(ctx context.Context, name string, at int, state document.StepState) *document.StepCost {
	if env.Costs == nil || at < 1 || state != document.StepCompleted && state != document.StepFailed && state != document.StepSkipped {
		return nil
	}
	r := env.Costs(ctx)
	if r == nil {
		return nil
	}
	if c, ok := r.snapshot(name, at, time.Now()); ok {
		return &c
	}
	return nil
}

// measured follows a move that landed: a step the run now holds is measured from now on,
// and one it took out of in_progress is no longer, its cost reported to the host.
func (env *ToolEnv) measured(ctx context.Context, p *document.Plan, step document.Step, cost *document.StepCost) {
	name := p.Name
	if env.Costs == nil {
		return
	}
	r := env.Costs(ctx)
	if r == nil {
		return
	}
	agent := document.HolderName(env.Agent(ctx))
	switch {
	case step.State == document.StepInProgress && step.Holder != "" && step.Holder == agent:
		r.take(p, step, time.Now())
	case cost != nil:
		invalid := r.drop(name, step.Number)
		if env.Report != nil {
			env.Report(ctx, CostReport{Plan: name, Step: step.Number, State: step.State, Agent: env.Agent(ctx), Cost: *cost, InvalidUsage: invalid})
		}
	case step.State != document.StepInProgress:
		r.drop(name, step.Number) // out of progress with nothing measured: nothing to keep
	}
}

// budgetLeft says, in the model's language, what is left of the budget of the step the
// call's run holds now on p (or of p's budget, when that is nearer its end); "" when the
// run holds no step of p or nothing bounds it.
func (env *ToolEnv) budgetLeft(ctx context.Context, p *document.Plan) string {
	if env.Costs == nil {
		return ""
	}
	r := env.Costs(ctx)
	if r == nil {
		return ""
	}
	l, ok := r.Left(p.Name, time.Now())
	if !ok {
		return ""
	}
	return BudgetText(env.Texts, l)
}

// BudgetText is l in the words of texts: "8.2k of 10k tokens left", or, for the plan's
// budget, "… left in the plan's budget".
func BudgetText(texts map[string]string, l document.Left) string {
	var parts []string
	if l.Of.Tokens > 0 {
		parts = append(parts, strings.NewReplacer("{left}", document.FormatTokens(l.Left.Tokens), "{budget}", document.FormatTokens(l.Of.Tokens)).Replace(texts["budget.tokens"]))
	}
	if l.Of.Time > 0 {
		parts = append(parts, strings.NewReplacer("{left}", document.FormatDuration(l.Left.Time), "{budget}", document.FormatDuration(l.Of.Time)).Replace(texts["budget.time"]))
	}
	return strings.ReplaceAll(texts["budget."+l.Which], "{amount}", strings.Join(parts, texts["budget.and"]))
}
