package main

import (
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
		return &cliError{exit: exitUsage, msg: c.t("step.not_number", args[1], name)}
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
			return &cliError{exit: exitFailed, msg: c.t("take.pending", number, name)}
		case s.State == plan.StepInProgress && s.Holder == holder:
			if holder == "" {
				c.say("take.already_nobody", name, number, clip(oneLine(stepText(s)), 60), cur.Revision)
			} else {
				c.say("take.already", name, number, clip(oneLine(stepText(s)), 60), oneLine(s.Holder), cur.Revision)
			}
			return nil
		}
	}
	p, step, err := c.store.MoveStep(c.ctx, plan.StepMove{Name: name, Step: number, State: plan.StepInProgress, By: holder, Takeover: true})
	if err != nil {
		return err
	}
	text := clip(oneLine(stepText(step)), 60)
	if step.Holder == "" {
		c.say("take.released", p.Name, step.Number, text, p.Revision)
		return nil
	}
	c.say("take.held", p.Name, step.Number, text, oneLine(step.Holder), p.Revision)
	return nil
}

// stepText is a step's text without its holder tag.
func stepText(s plan.Step) string {
	return s.WithoutHolder()
}

// holdersText lists the steps in progress and who holds them, "" when none is.
func (l lang) holdersText(steps []plan.Step) string {
	var parts []string
	for _, s := range steps {
		if s.State != plan.StepInProgress {
			continue
		}
		if s.Holder == "" {
			parts = append(parts, l.t("held.nobody", s.Number))
		} else {
			parts = append(parts, l.t("held.step", s.Number, oneLine(s.Holder)))
		}
	}
	return strings.Join(parts, l.t("sep"))
}
