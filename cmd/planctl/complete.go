package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
)

// complete completes a step as a person: a step that awaits review (its doer's completion
// of a "(review)" step), or any step still pending or in progress.
func (c *cli) complete(args []string) error {
	name := args[0]
	number, err := strconv.Atoi(args[1])
	if err != nil || number < 1 {
		return &cliError{exit: exitUsage, msg: c.t("step.not_number", args[1], name)}
	}
	by := c.by
	if !c.set["by"] {
		by = os.Getenv("USER")
	}
	if strings.TrimSpace(by) == "" {
		return &cliError{exit: exitUsage, msg: c.t("person.completes")}
	}
	p, step, err := c.store.MoveStep(plan.WithActor(c.ctx, by), plan.StepMove{Name: name, Step: number, State: plan.StepCompleted, IfRevision: c.rev})
	if err != nil {
		return err
	}
	c.say("complete.done", p.Name, step.Number, clip(oneLine(stepText(step)), 60), oneLine(by), p.Revision)
	return nil
}

// reviewText lists the steps that await review ("step 2, done by worker-1"), for show.
func (l lang) reviewText(steps []plan.Step) string {
	var parts []string
	for _, s := range steps {
		switch {
		case !s.AwaitingReview:
		case s.DoneBy != "":
			parts = append(parts, l.t("review.done_by", s.Number, oneLine(s.DoneBy)))
		default:
			parts = append(parts, l.t("review.step", s.Number))
		}
	}
	return strings.Join(parts, l.t("sep"))
}

// costText is what the steps cost together and which steps say, for show: "4400+200
// tokens, 5 calls (3 without usage), 4 tools, 60s (steps 1, 2)"; "" when no step says.
func (l lang) costText(steps []plan.Step) string {
	total := api.TotalCost(steps)
	if total == nil {
		return ""
	}
	var which []string
	for _, s := range steps {
		if s.Cost != nil {
			which = append(which, strconv.Itoa(s.Number))
		}
	}
	if len(which) == 1 {
		return l.t("cost.of_step", l.cost(*total), which[0])
	}
	return l.t("cost.of_steps", l.cost(*total), strings.Join(which, ", "))
}

// cost is what api.StepCost.String says, in l: "4400+200 tokens, 5 calls (3 without
// usage), 4 tools, 60s".
func (l lang) cost(c api.StepCost) string {
	var parts []string
	if c.NoUsage < c.ModelCalls {
		parts = append(parts, l.t("cost.tokens", c.PromptTokens, c.CompletionTokens))
	}
	calls := l.t(plural("cost.calls", c.ModelCalls), c.ModelCalls)
	if c.NoUsage > 0 {
		calls += l.t("cost.no_usage", c.NoUsage)
	}
	parts = append(parts, calls, l.t(plural("cost.tools", c.ToolCalls), c.ToolCalls), l.t("cost.seconds", c.Seconds))
	return strings.Join(parts, l.t("cost.sep"))
}

// plural is key for a count of n: key + ".one" for 1, key + ".other" otherwise.
func plural(key string, n int) string {
	if n == 1 {
		return key + ".one"
	}
	return key + ".other"
}
