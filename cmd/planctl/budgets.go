package main

import (
	"strconv"
	"strings"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/document"
)

// budget sets what the whole plan may cost (NAME BUDGET), or one step (NAME STEP BUDGET): a
// person raises it so that a step over it can use its gated tools again. Either keeps the
// plan's approval: the Store writes a step's "(budget …)" itself, a person's decision.
func (c *cli) budget(args []string) error {
	u := plan.Update{Name: args[0], Budget: strings.TrimSpace(args[len(args)-1]), IfRevision: c.rev}
	if len(args) == 3 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			return &cliError{exit: exitUsage, msg: c.t("step.not_number", args[1], u.Name)}
		}
		u.BudgetStep = n
	}
	p, err := c.store.Put(c.ctx, u)
	if err != nil {
		return err
	}
	kept := ""
	if p.Approval != nil {
		kept = c.t("budget.still_approved")
	}
	if u.BudgetStep == 0 {
		c.say("budget.plan", p.Name, oneLine(p.Budget), p.Revision, kept)
		return nil
	}
	step := plan.ParseSteps(p.Content)[u.BudgetStep-1]
	c.say("budget.step", p.Name, step.Number, clip(oneLine(stepText(step)), 60), oneLine(u.Budget), p.Revision, kept)
	return nil
}

// overBudgetText says what went over its budget, as the steps' lines record their costs
// ("the plan (200k tokens); step 2 (20k tokens)"), for show; "" when nothing did.
func (l lang) overBudgetText(p *plan.Plan, steps []plan.Step) string {
	var parts []string
	if p.OverBudget {
		parts = append(parts, l.t("budget.over_plan", oneLine(p.Budget)))
	}
	for _, s := range steps {
		if s.OverBudget {
			parts = append(parts, l.t("budget.over_step", s.Number, budgetText(*s.Budget)))
		}
	}
	return strings.Join(parts, l.t("sep"))
}

// budgetText writes b short: "20k tokens", "10m" or both.
func budgetText(b api.Budget) string {
	var parts []string
	if b.Tokens > 0 {
		parts = append(parts, document.FormatTokens(b.Tokens)+" tokens")
	}
	if b.Time > 0 {
		parts = append(parts, document.FormatDuration(b.Time))
	}
	return strings.Join(parts, ", ")
}

// overBudgetMark is what list and watch add to a plan's progress when it or a step of it
// went over its budget.
func (l lang) overBudgetMark(s plan.Summary) string {
	if s.OverBudget {
		return l.t("budget.mark")
	}
	return ""
}
