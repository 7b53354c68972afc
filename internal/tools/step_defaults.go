package tools

import (
	"context"
	"slices"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
)

// What update_plan_step does when a call leaves out what only one answer fits: no name is
// the plan the call's run holds steps of (when that is one plan), else the only plan there
// is; no step with completed, failed or skipped is the one step the caller holds in that
// plan (the run's own, whose cost it measured, else the engine's choice under the plan's
// lock). Anything ambiguous is a refusal saying what to pass, and nothing is written.

// planOfMove is the plan a move that names none is of.
func (env *ToolEnv) planOfMove(ctx context.Context) (string, error) {
	if held := env.runHeldPlans(ctx); len(held) == 1 {
		return held[0], nil
	} else if len(held) > 1 {
		return "", unnamedPlan(held, len(held))
	}
	sums, _, err := env.Store.Summaries(ctx)
	if err != nil {
		return "", err
	}
	switch len(sums) {
	case 0:
		return "", document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonRequired, Field: pName.Name})
	case 1:
		return sums[0].Name, nil
	}
	names := make([]string, 0, min(len(sums), 9))
	for _, s := range sums[:min(len(sums), 9)] {
		names = append(names, s.Name)
	}
	return "", unnamedPlan(names, len(sums))
}

// unnamedPlan refuses a call that names no plan when any of total plans, names the first of
// them, could be meant.
func unnamedPlan(names []string, total int) error {
	return document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonPlanUnnamed, Field: pName.Name,
		Size: int64(total), Value: engine.PlanNames(names)})
}

// runHeldPlans are the plans the call's run holds steps of, as it took them, in name order.
func (env *ToolEnv) runHeldPlans(ctx context.Context) []string {
	r := env.runCosts(ctx)
	if r == nil {
		return nil
	}
	r.Mu.Lock()
	defer r.Mu.Unlock()
	var names []string
	for _, h := range r.Held {
		if !slices.Contains(names, h.Plan) {
			names = append(names, h.Plan)
		}
	}
	slices.Sort(names)
	return names
}

// runHeldStep is the one step of plan name the call's run holds, as it took it; 0 when it
// holds none (the engine then chooses, or refuses). Where the run measures several steps of
// the plan (one was taken from it, say), the plan as stored says which one the caller holds,
// so the cost goes to the step the move finishes: one read more, only then.
func (env *ToolEnv) runHeldStep(ctx context.Context, name string) int {
	n, several := env.runMeasures(ctx, name)
	if !several {
		return n
	}
	p, err := env.Store.Get(ctx, name)
	if err != nil {
		return 0
	}
	n, _ = engine.HeldStep(p, document.StepsOf(p.Content), document.HolderName(env.Agent(ctx)))
	return n
}

// runMeasures is the step of plan name the call's run measures, and whether it measures
// several.
func (env *ToolEnv) runMeasures(ctx context.Context, name string) (step int, several bool) {
	r := env.runCosts(ctx)
	if r == nil {
		return 0, false
	}
	r.Mu.Lock()
	defer r.Mu.Unlock()
	for _, h := range r.Held {
		if h.Plan != name {
			continue
		}
		if step != 0 {
			return 0, true
		}
		step = h.Step
	}
	return step, false
}

// runCosts is the measure of the call's run; nil outside one.
func (env *ToolEnv) runCosts(ctx context.Context) *RunCosts {
	if env.Costs == nil {
		return nil
	}
	return env.Costs(ctx)
}
