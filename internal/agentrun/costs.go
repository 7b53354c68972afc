package agentrun

import (
	"context"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/tools"
)

// The middleware measures what each step costs: every model call's usage (prompt and
// completion tokens), every tool call and the wall time are attributed to the step the
// calling agent's run holds (the one it last took with update_plan_step), and the totals are
// written with the step when the run's move takes it out of in_progress. A run counts only
// what it saw: a step taken in an earlier run is measured from this run's first call.

// costsIn is the measure of the run of ctx; nil outside a run.
func (m *Middleware[M, S]) costsIn(ctx context.Context) *tools.RunCosts {
	if st, ok := ctx.Value(m.stateKey).(*runState); ok {
		return &st.costs
	}
	return nil
}

// usageOf is the usage a model's answer reports; nil for none.
func usageOf(msg any) *schema.TokenUsage {
	switch v := msg.(type) {
	case *schema.Message:
		if v != nil && v.ResponseMeta != nil {
			return v.ResponseMeta.Usage
		}
	case *schema.AgenticMessage:
		if v != nil && v.ResponseMeta != nil {
			return v.ResponseMeta.TokenUsage
		}
	}
	return nil
}

// metered wraps the agent's model so every call is attributed to the step the run holds.
func (m *Middleware[M, S]) metered(inner model.BaseModel[M]) model.BaseModel[M] {
	return &meteredModel[M, S]{inner: inner, m: m}
}

type meteredModel[M adk.MessageType, S any] struct {
	inner model.BaseModel[M]
	m     *Middleware[M, S]
}

func (w *meteredModel[M, S]) Generate(ctx context.Context, input []M, opts ...model.Option) (M, error) {
	out, err := w.inner.Generate(ctx, input, opts...)
	if r := w.m.costsIn(ctx); r != nil && err == nil {
		if h := r.ModelCall(usageOf(out)); h != nil {
			w.m.noteBudget(ctx, r, h)
		}
	}
	return out, err
}

func (w *meteredModel[M, S]) Stream(ctx context.Context, input []M, opts ...model.Option) (*schema.StreamReader[M], error) {
	sr, err := w.inner.Stream(ctx, input, opts...)
	r := w.m.costsIn(ctx)
	if err != nil || r == nil {
		return sr, err
	}
	h := r.ModelCall(nil)
	if h == nil {
		return sr, nil
	}
	var applied *schema.TokenUsage
	return schema.StreamReaderWithConvert(sr, func(chunk M) (M, error) {
		if u := usageOf(chunk); u != nil {
			r.StreamUsage(h, &applied, u)
			w.m.noteBudget(ctx, r, h)
		}
		return chunk, nil
	}), nil
}

// reportCost tells the host's OnCost and the run's events what a step cost.
func (m *Middleware[M, S]) reportCost(ctx context.Context, r tools.CostReport) {
	if m.cfg.OnCost != nil {
		m.cfg.OnCost(ctx, r)
	}
	m.emit(ctx, r)
}

// noteBudget reports, once per budget, a step of the run that went over it.
func (m *Middleware[M, S]) noteBudget(ctx context.Context, r *tools.RunCosts, h *tools.HeldStep) {
	r.Mu.Lock()
	over, b := document.OverBudget(h.StepBudget, h.PlanBudget, h.Spent, h.Cost, time.Since(h.Since))
	report := over != "" && h.Over != over
	if report {
		h.Over = over
	}
	c := h.Cost
	c.Seconds = document.WholeSeconds(time.Since(h.Since))
	plan, step := h.Plan, h.Step
	r.Mu.Unlock()
	if report {
		m.reportCost(ctx, tools.CostReport{Plan: plan, Step: step, State: document.StepInProgress, Agent: m.agentIn(ctx), Cost: c, Over: over, Budget: b})
	}
}

// budgetGate refuses call, allowed under step s of cur, when that step or cur went over its
// budget, counting what the run measured of the step so far.
func (m *Middleware[M, S]) budgetGate(ctx context.Context, cur *document.Plan, s document.Step, call GatedCall) GatedCall {
	if !call.Allowed {
		return call
	}
	stepB, planB, spent := document.BudgetsOf(cur, s)
	if stepB == nil && planB == nil {
		return call
	}
	var live document.StepCost
	var elapsed time.Duration
	if r := m.costsIn(ctx); r != nil {
		r.Mu.Lock()
		for _, h := range r.Held {
			if h.Plan == cur.Name && h.Step == s.Number {
				live, elapsed = h.Cost, time.Since(h.Since)
			}
		}
		r.Mu.Unlock()
	}
	if over, _ := document.OverBudget(stepB, planB, spent, live, elapsed); over != "" {
		call.Allowed, call.Reason, call.Over = false, document.GateOverBudget, over
	}
	return call
}

// gateCode is the code of a gated call refused for reason.
func gateCode(reason string) document.Code {
	if reason == document.GateOverBudget {
		return document.CodeOverBudget
	}
	return document.CodeNotApproved
}
