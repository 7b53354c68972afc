package tools

import (
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/document"
)

// RunCosts are the steps one run holds and what each cost so far.
type RunCosts struct {
	Mu   sync.Mutex
	Held []*HeldStep // most recently taken last
}

// HeldStep is one step a run holds, what it cost so far and the budgets that bound it.
type HeldStep struct {
	Plan  string
	Step  int
	Since time.Time
	Cost  document.StepCost
	// StepBudget and planBudget bound it, as the plan said when the run took it, and spent
	// is what the plan's steps had recorded then.
	StepBudget, PlanBudget *document.Budget
	Spent                  document.StepCost
	Over                   string // the budget already reported gone over
	// Invalid counts the model calls whose usage was negative or over
	// document.MaxCallTokens: counted without usage, and reported (CostReport.InvalidUsage).
	Invalid int
	// Warned: the run was reminded once that 80% of its budget is spent (Warn).
	Warned bool
}

// take starts measuring step of plan, unless it is measured already (a renewal).
func (r *RunCosts) take(p *document.Plan, s document.Step, now time.Time) {
	plan, step := p.Name, s.Number
	r.Mu.Lock()
	defer r.Mu.Unlock()
	for i, h := range r.Held {
		if h.Plan == plan && h.Step == step {
			r.Held = append(slices.Delete(r.Held, i, i+1), h) // the most recent again
			return
		}
	}
	h := &HeldStep{Plan: plan, Step: step, Since: now}
	h.StepBudget, h.PlanBudget, h.Spent = document.BudgetsOf(p, s)
	r.Held = append(r.Held, h)
}

// current is the step the run's calls are attributed to; nil when it holds none.
func (r *RunCosts) current() *HeldStep {
	if len(r.Held) == 0 {
		return nil
	}
	return r.Held[len(r.Held)-1]
}

// snapshot is what step of plan cost until now; ok is false when the run does not hold it.
func (r *RunCosts) snapshot(plan string, step int, now time.Time) (document.StepCost, bool) {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	for _, h := range r.Held {
		if h.Plan == plan && h.Step == step {
			c := h.Cost
			c.Seconds = document.WholeSeconds(now.Sub(h.Since))
			return c, true
		}
	}
	return document.StepCost{}, false
}

// drop stops measuring step of plan, and returns how many of its model calls reported an
// invalid usage.
func (r *RunCosts) drop(plan string, step int) (invalid int) {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	r.Held = slices.DeleteFunc(r.Held, func(h *HeldStep) bool {
		if h.Plan == plan && h.Step == step {
			invalid += h.Invalid
			return true
		}
		return false
	})
	return invalid
}

// ToolCall counts a tool call of the run.
func (r *RunCosts) ToolCall() {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	if h := r.current(); h != nil {
		h.Cost.ToolCalls++
	}
}

// ModelCall counts a model call of the run that reported u (nil: no usage), and returns the
// step it was attributed to (nil for none).
func (r *RunCosts) ModelCall(u *schema.TokenUsage) *HeldStep {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	h := r.current()
	if h == nil {
		return nil
	}
	h.Cost.ModelCalls++
	if !h.addUsage(u) {
		h.Cost.NoUsage++
	}
	return h
}

// addUsage adds u to h's tokens, saturating; a usage that is none, negative or over
// document.MaxCallTokens adds nothing and returns false (an invalid one is counted).
func (h *HeldStep) addUsage(u *schema.TokenUsage) bool {
	if u == nil {
		return false
	}
	p, c := int64(u.PromptTokens), int64(u.CompletionTokens)
	if !document.UsageReads(p, c) {
		h.Invalid++
		return false
	}
	h.Cost.PromptTokens = document.AddCount(h.Cost.PromptTokens, p)
	h.Cost.CompletionTokens = document.AddCount(h.Cost.CompletionTokens, c)
	return true
}

// StreamUsage applies the usage a streamed answer reports, which arrives with its last
// chunks: the call was counted without usage, and the latest usage seen replaces that.
func (r *RunCosts) StreamUsage(h *HeldStep, applied **schema.TokenUsage, u *schema.TokenUsage) {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	if prev := *applied; prev != nil {
		h.Cost.PromptTokens = max(h.Cost.PromptTokens-int64(prev.PromptTokens), 0)
		h.Cost.CompletionTokens = max(h.Cost.CompletionTokens-int64(prev.CompletionTokens), 0)
	} else {
		h.Cost.NoUsage--
	}
	*applied = nil
	if !h.addUsage(u) {
		h.Cost.NoUsage++
		return
	}
	cp := *u
	*applied = &cp
}

// Left is what is left of the budget of the step of plan the run most recently took (or of
// the plan's); ok is false when the run holds no step of plan or no budget bounds it.
func (r *RunCosts) Left(plan string, now time.Time) (document.Left, bool) {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	for i := len(r.Held) - 1; i >= 0; i-- {
		if h := r.Held[i]; h.Plan == plan {
			return document.BudgetLeft(h.StepBudget, h.PlanBudget, h.Spent, h.Cost, now.Sub(h.Since))
		}
	}
	return document.Left{}, false
}

// warnAt is the share of a budget spent that earns the run one reminder.
const warnAt = 0.8

// Warn reports, once per step the run holds, that h spent 80% of its budget (or its plan's)
// and what is left; ok is false otherwise. The caller holds Mu.
func (h *HeldStep) Warn(now time.Time) (document.Left, bool) {
	if h.Warned {
		return document.Left{}, false
	}
	l, ok := document.BudgetLeft(h.StepBudget, h.PlanBudget, h.Spent, h.Cost, now.Sub(h.Since))
	if !ok || l.Spent < warnAt {
		return document.Left{}, false
	}
	h.Warned = true
	return l, true
}
