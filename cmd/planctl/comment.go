package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
)

// comment records a person's comment on step STEP of plan NAME ("0" or "plan": the plan as
// a whole), as -by WHO (default $USER): the agents must answer it before they can ask for
// approval again.
func (c *cli) comment(args []string) error {
	name, at, text := args[0], strings.TrimSpace(args[1]), args[2]
	step, err := strconv.Atoi(at)
	if strings.EqualFold(at, "plan") {
		step, err = 0, nil
	}
	if err != nil || step < 0 {
		return &cliError{exit: exitUsage, msg: fmt.Sprintf("STEP is a step number, or 0 (or \"plan\") for the whole plan: `planctl show %s` numbers them", name)}
	}
	by, err := c.person("comments")
	if err != nil {
		return err
	}
	p, err := c.store.Put(plan.WithActor(c.ctx, by), plan.Update{Name: name, Comment: &api.Comment{Step: step, Text: text}, IfRevision: c.rev})
	if err != nil {
		return err
	}
	added := p.Comments[len(p.Comments)-1]
	fmt.Fprintf(c.stdout, "%s: comment %s %s by %s; revision %d\n", p.Name, added.ID, commentOn(added.Step), oneLine(by), p.Revision)
	return nil
}

// resolve closes comment ID of plan NAME as -by WHO (default $USER), answered or not.
func (c *cli) resolve(args []string) error {
	name, id := args[0], strings.TrimSpace(args[1])
	by, err := c.person("resolves")
	if err != nil {
		return err
	}
	p, err := c.store.Put(plan.WithActor(c.ctx, by), plan.Update{Name: name, Resolve: []string{id}, IfRevision: c.rev})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s: comment %s resolved by %s; %d open; revision %d\n", p.Name, oneLine(id), oneLine(by), len(api.OpenComments(p.Comments)), p.Revision)
	return nil
}

// commentOn names what a comment is on: "on step 3", "on the plan".
func commentOn(step int) string {
	if step == 0 {
		return "on the plan"
	}
	return "on step " + strconv.Itoa(step)
}

// printComments prints p's comments for show, one line each with what became of it; text
// people or agents wrote is printed on one line, without control characters.
func (c *cli) printComments(p *plan.Plan) {
	for _, k := range p.Comments {
		state := "open"
		switch {
		case k.ResolvedAt != nil:
			state = "resolved by " + oneLine(k.ResolvedBy)
		case k.AnsweredAt != nil:
			state = "answered by " + oneLine(k.AnsweredBy)
			if k.Answer != "" {
				state += ": " + oneLine(k.Answer)
			}
		}
		fmt.Fprintf(c.stdout, "comment:  %s %s by %s, r%d, %s: %s [%s]\n", k.ID, commentOn(k.Step), oneLine(k.Author), k.Revision,
			k.At.Local().Format(time.DateTime+" MST"), oneLine(k.Text), state)
	}
}
