package plan

import (
	"context"
	"time"

	"github.com/einoplan/plan/internal/document"
)

// stepCost is what a move of step at of plan name to state writes as its cost: what the
// call's run measured while it held the step, for a move out of in_progress; nil otherwise.
func (env *toolEnv) stepCost(ctx context.Context, name string, at int, state StepState) *StepCost {
	if env.costs == nil || at < 1 || state != StepCompleted && state != StepFailed && state != StepSkipped {
		return nil
	}
	r := env.costs(ctx)
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
func (env *toolEnv) measured(ctx context.Context, p *Plan, step Step, cost *StepCost) {
	name := p.Name
	if env.costs == nil {
		return
	}
	r := env.costs(ctx)
	if r == nil {
		return
	}
	agent := document.HolderName(env.agent(ctx))
	switch {
	case step.State == StepInProgress && step.Holder != "" && step.Holder == agent:
		r.take(p, step, time.Now())
	case cost != nil:
		r.drop(name, step.Number)
		if env.report != nil {
			env.report(ctx, CostReport{Plan: name, Step: step.Number, State: step.State, Agent: env.agent(ctx), Cost: *cost})
		}
	}
}
