package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/einoplan/plan"
)

// take hands a step to the holder -to names, or releases it when -to is empty: for a
// worker that stopped while holding a step. A pending step is started for that holder.
func (c *cli) take(args []string) error {
	name := args[0]
	number, err := strconv.Atoi(args[1])
	if err != nil || number < 1 {
		return &cliError{exit: exitUsage, msg: fmt.Sprintf(
			"%s is not a step number: steps are numbered from 1, as `planctl show %s` lists them", args[1], name)}
	}
	holder := c.to
	if strings.TrimSpace(holder) == "" {
		holder = ""
	}
	// Steps never move back to pending nor, once final, anywhere: a refusal read from this
	// revision stays right whatever is written meanwhile.
	cur, err := c.store.Get(c.ctx, name)
	if err != nil {
		return err
	}
	for _, s := range plan.ParseSteps(cur.Content) {
		if s.Number != number {
			continue
		}
		switch {
		case s.State == plan.StepPending && holder == "":
			return &cliError{exit: exitFailed, msg: fmt.Sprintf(
				"step %d of %s is pending: nobody holds it, so there is nothing to release; `planctl take %s %d -to WHO` starts it for WHO",
				number, name, name, number)}
		case s.State == plan.StepInProgress && s.Holder == holder:
			who := "nobody"
			if holder != "" {
				who = s.Holder
			}
			fmt.Fprintf(c.stdout, "%s: step %d (%s) is already held by %s; nothing was changed (revision %d)\n",
				name, number, clip(oneLine(stepText(s)), 60), oneLine(who), cur.Revision)
			return nil
		}
	}
	p, step, err := c.store.MoveStep(c.ctx, plan.StepMove{Name: name, Step: number, State: plan.StepInProgress, By: holder, Takeover: true})
	if err != nil {
		return err
	}
	text := clip(oneLine(stepText(step)), 60)
	if step.Holder == "" {
		fmt.Fprintf(c.stdout, "%s: step %d (%s) released: in progress, held by nobody; revision %d\n",
			p.Name, step.Number, text, p.Revision)
		return nil
	}
	fmt.Fprintf(c.stdout, "%s: step %d (%s) is now held by %s; revision %d\n",
		p.Name, step.Number, text, oneLine(step.Holder), p.Revision)
	return nil
}

// stepText is a step's text without its holder tag.
func stepText(s plan.Step) string {
	return s.WithoutHolder()
}

// holdersText lists the steps in progress and who holds them, "" when none is.
func holdersText(steps []plan.Step) string {
	var parts []string
	for _, s := range steps {
		if s.State != plan.StepInProgress {
			continue
		}
		who := s.Holder
		if who == "" {
			who = "nobody"
		}
		parts = append(parts, fmt.Sprintf("step %d by %s", s.Number, oneLine(who)))
	}
	return strings.Join(parts, "; ")
}
