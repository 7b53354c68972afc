package plan

import (
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/document"
)

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

func init() {
	schema.RegisterName[CostReport]("einoplan_cost_report") // events are kept in checkpoints
}
