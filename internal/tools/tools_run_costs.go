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

// drop stops measuring step of plan.
func (r *RunCosts) drop(plan string, step int) {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	r.Held = slices.DeleteFunc(r.Held, func(h *HeldStep) bool { return h.Plan == plan && h.Step == step })
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
	if u == nil {
		h.Cost.NoUsage++
	} else {
		h.Cost.PromptTokens += int64(max(u.PromptTokens, 0))
		h.Cost.CompletionTokens += int64(max(u.CompletionTokens, 0))
	}
	return h
}

// StreamUsage applies the usage a streamed answer reports, which arrives with its last
// chunks: the call was counted without usage, and the latest usage seen replaces that.
func (r *RunCosts) StreamUsage(h *HeldStep, applied **schema.TokenUsage, u *schema.TokenUsage) {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	if prev := *applied; prev != nil {
		h.Cost.PromptTokens -= int64(max(prev.PromptTokens, 0))
		h.Cost.CompletionTokens -= int64(max(prev.CompletionTokens, 0))
	} else {
		h.Cost.NoUsage--
	}
	h.Cost.PromptTokens += int64(max(u.PromptTokens, 0))
	h.Cost.CompletionTokens += int64(max(u.CompletionTokens, 0))
	cp := *u
	*applied = &cp
}
