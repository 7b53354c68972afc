package main

import (
	"fmt"
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
		return &cliError{exit: exitUsage, msg: fmt.Sprintf(
			"%s is not a step number: steps are numbered from 1, as `planctl show %s` lists them", args[1], name)}
	}
	by := c.by
	if !c.set["by"] {
		by = os.Getenv("USER")
	}
	if strings.TrimSpace(by) == "" {
		return &cliError{exit: exitUsage, msg: "$USER is not set: say who completes the step with -by WHO"}
	}
	p, step, err := c.store.MoveStep(plan.WithActor(c.ctx, by), plan.StepMove{Name: name, Step: number, State: plan.StepCompleted, IfRevision: c.rev})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s: step %d (%s) completed by %s; revision %d\n",
		p.Name, step.Number, clip(oneLine(stepText(step)), 60), oneLine(by), p.Revision)
	return nil
}

// reviewText lists the steps that await review ("step 2, done by worker-1"), for show.
func reviewText(steps []plan.Step) string {
	var parts []string
	for _, s := range steps {
		if !s.AwaitingReview {
			continue
		}
		part := "step " + strconv.Itoa(s.Number)
		if s.DoneBy != "" {
			part += ", done by " + oneLine(s.DoneBy)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}

// costText is what the steps cost together and which steps say, for show: "4400+200
// tokens, 5 calls (3 without usage), 4 tools, 60s (steps 1, 2)"; "" when no step says.
func costText(steps []plan.Step) string {
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
	label := "steps "
	if len(which) == 1 {
		label = "step "
	}
	return total.String() + " (" + label + strings.Join(which, ", ") + ")"
}
