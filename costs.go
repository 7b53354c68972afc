package plan

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/document"
)

// The middleware measures what each step costs: every model call's usage (prompt and
// completion tokens), every tool call and the wall time are attributed to the step the
// calling agent's run holds (the one it last took with update_plan_step), and the totals are
// written with the step when the run's move takes it out of in_progress. A run counts only
// what it saw: a step taken in an earlier run is measured from this run's first call.

// CostReport is what a host hears of a step's cost (Config.OnCost, and an event of the run
// whose Output.CustomizedOutput is the CostReport): when the step leaves in_progress, and
// when it first goes over its budget or its plan's (Over).
type CostReport struct {
	Plan  string    `json:"plan"`
	Step  int       `json:"step"`
	State StepState `json:"state"`
	Agent string    `json:"agent,omitempty"`
	Cost  StepCost  `json:"cost"`
	// Over names the budget the step went over: "step" or "plan"; "" when it is within.
	Over string `json:"over,omitempty"`
	// Budget is the budget it went over, when Over is set.
	Budget *Budget `json:"budget,omitempty"`
}

// runCosts are the steps one run holds and what each cost so far.
type runCosts struct {
	mu   sync.Mutex
	held []*heldStep // most recently taken last
}

type heldStep struct {
	plan  string
	step  int
	since time.Time
	cost  StepCost
	// stepBudget and planBudget bound it, as the plan said when the run took it, and spent
	// is what the plan's steps had recorded then.
	stepBudget, planBudget *Budget
	spent                  StepCost
	over                   string // the budget already reported gone over
}

// take starts measuring step of plan, unless it is measured already (a renewal).
func (r *runCosts) take(p *Plan, s Step, now time.Time) {
	plan, step := p.Name, s.Number
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, h := range r.held {
		if h.plan == plan && h.step == step {
			r.held = append(slices.Delete(r.held, i, i+1), h) // the most recent again
			return
		}
	}
	h := &heldStep{plan: plan, step: step, since: now}
	h.stepBudget, h.planBudget, h.spent = document.BudgetsOf(p, s)
	r.held = append(r.held, h)
}

// current is the step the run's calls are attributed to; nil when it holds none.
func (r *runCosts) current() *heldStep {
	if len(r.held) == 0 {
		return nil
	}
	return r.held[len(r.held)-1]
}

// snapshot is what step of plan cost until now; ok is false when the run does not hold it.
func (r *runCosts) snapshot(plan string, step int, now time.Time) (StepCost, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range r.held {
		if h.plan == plan && h.step == step {
			c := h.cost
			c.Seconds = document.WholeSeconds(now.Sub(h.since))
			return c, true
		}
	}
	return StepCost{}, false
}

// drop stops measuring step of plan.
func (r *runCosts) drop(plan string, step int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held = slices.DeleteFunc(r.held, func(h *heldStep) bool { return h.plan == plan && h.step == step })
}

// toolCall counts a tool call of the run.
func (r *runCosts) toolCall() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h := r.current(); h != nil {
		h.cost.ToolCalls++
	}
}

// modelCall counts a model call of the run that reported u (nil: no usage), and returns the
// step it was attributed to (nil for none).
func (r *runCosts) modelCall(u *schema.TokenUsage) *heldStep {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.current()
	if h == nil {
		return nil
	}
	h.cost.ModelCalls++
	if u == nil {
		h.cost.NoUsage++
	} else {
		h.cost.PromptTokens += int64(max(u.PromptTokens, 0))
		h.cost.CompletionTokens += int64(max(u.CompletionTokens, 0))
	}
	return h
}

// streamUsage applies the usage a streamed answer reports, which arrives with its last
// chunks: the call was counted without usage, and the latest usage seen replaces that.
func (r *runCosts) streamUsage(h *heldStep, applied **schema.TokenUsage, u *schema.TokenUsage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev := *applied; prev != nil {
		h.cost.PromptTokens -= int64(max(prev.PromptTokens, 0))
		h.cost.CompletionTokens -= int64(max(prev.CompletionTokens, 0))
	} else {
		h.cost.NoUsage--
	}
	h.cost.PromptTokens += int64(max(u.PromptTokens, 0))
	h.cost.CompletionTokens += int64(max(u.CompletionTokens, 0))
	cp := *u
	*applied = &cp
}

// costsIn is the measure of the run of ctx; nil outside a run.
func (m *middleware[M]) costsIn(ctx context.Context) *runCosts {
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
func (m *middleware[M]) metered(inner model.BaseModel[M]) model.BaseModel[M] {
	return &meteredModel[M]{inner: inner, m: m}
}

type meteredModel[M adk.MessageType] struct {
	inner model.BaseModel[M]
	m     *middleware[M]
}

func (w *meteredModel[M]) Generate(ctx context.Context, input []M, opts ...model.Option) (M, error) {
	out, err := w.inner.Generate(ctx, input, opts...)
	if r := w.m.costsIn(ctx); r != nil && err == nil {
		if h := r.modelCall(usageOf(out)); h != nil {
			w.m.noteBudget(ctx, r, h)
		}
	}
	return out, err
}

func (w *meteredModel[M]) Stream(ctx context.Context, input []M, opts ...model.Option) (*schema.StreamReader[M], error) {
	sr, err := w.inner.Stream(ctx, input, opts...)
	r := w.m.costsIn(ctx)
	if err != nil || r == nil {
		return sr, err
	}
	h := r.modelCall(nil)
	if h == nil {
		return sr, nil
	}
	var applied *schema.TokenUsage
	return schema.StreamReaderWithConvert(sr, func(chunk M) (M, error) {
		if u := usageOf(chunk); u != nil {
			r.streamUsage(h, &applied, u)
			w.m.noteBudget(ctx, r, h)
		}
		return chunk, nil
	}), nil
}

// reportCost tells the host's OnCost and the run's events what a step cost.
func (m *middleware[M]) reportCost(ctx context.Context, r CostReport) {
	if m.cfg.OnCost != nil {
		m.cfg.OnCost(ctx, r)
	}
	m.emit(ctx, r)
}

func init() {
	schema.RegisterName[CostReport]("einoplan_cost_report") // events are kept in checkpoints
}

// noteBudget reports, once per budget, a step of the run that went over it.
func (m *middleware[M]) noteBudget(ctx context.Context, r *runCosts, h *heldStep) {
	r.mu.Lock()
	over, b := document.OverBudget(h.stepBudget, h.planBudget, h.spent, h.cost, time.Since(h.since))
	report := over != "" && h.over != over
	if report {
		h.over = over
	}
	c := h.cost
	c.Seconds = document.WholeSeconds(time.Since(h.since))
	plan, step := h.plan, h.step
	r.mu.Unlock()
	if report {
		m.reportCost(ctx, CostReport{Plan: plan, Step: step, State: StepInProgress, Agent: m.agentIn(ctx), Cost: c, Over: over, Budget: b})
	}
}

// budgetGate refuses call, allowed under step s of cur, when that step or cur went over its
// budget, counting what the run measured of the step so far.
func (m *middleware[M]) budgetGate(ctx context.Context, cur *Plan, s Step, call GatedCall) GatedCall {
	if !call.Allowed {
		return call
	}
	stepB, planB, spent := document.BudgetsOf(cur, s)
	if stepB == nil && planB == nil {
		return call
	}
	var live StepCost
	var elapsed time.Duration
	if r := m.costsIn(ctx); r != nil {
		r.mu.Lock()
		for _, h := range r.held {
			if h.plan == cur.Name && h.step == s.Number {
				live, elapsed = h.cost, time.Since(h.since)
			}
		}
		r.mu.Unlock()
	}
	if over, _ := document.OverBudget(stepB, planB, spent, live, elapsed); over != "" {
		call.Allowed, call.Reason = false, document.GateOverBudget
	}
	return call
}

// gateCode is the code of a gated call refused for reason.
func gateCode(reason string) Code {
	if reason == document.GateOverBudget {
		return CodeOverBudget
	}
	return CodeNotApproved
}
