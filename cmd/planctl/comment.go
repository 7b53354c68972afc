package main

import (
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
		return &cliError{exit: exitUsage, msg: c.t("comment.step", name)}
	}
	by, err := c.person("person.comments")
	if err != nil {
		return err
	}
	p, err := c.store.Put(plan.WithActor(c.ctx, by), plan.Update{Name: name, Comment: &api.Comment{Step: step, Text: text}, IfRevision: c.rev})
	if err != nil {
		return err
	}
	added := p.Comments[len(p.Comments)-1]
	c.say("comment.done", p.Name, added.ID, c.l.commentOn(added.Step), oneLine(by), p.Revision)
	return nil
}

// resolve closes comment ID of plan NAME as -by WHO (default $USER), answered or not.
func (c *cli) resolve(args []string) error {
	name, id := args[0], strings.TrimSpace(args[1])
	by, err := c.person("person.resolves")
	if err != nil {
		return err
	}
	p, err := c.store.Put(plan.WithActor(c.ctx, by), plan.Update{Name: name, Resolve: []string{id}, IfRevision: c.rev})
	if err != nil {
		return err
	}
	c.say("resolve.done", p.Name, oneLine(id), oneLine(by), len(api.OpenComments(p.Comments)), p.Revision)
	return nil
}

// commentOn names what a comment is on: "on step 3", "on the plan".
func (l lang) commentOn(step int) string {
	if step == 0 {
		return l.t("comment.on_plan")
	}
	return l.t("comment.on_step", step)
}

// printComments prints p's comments for show, one line each with what became of it; text
// people or agents wrote is printed on one line, without control characters.
func (c *cli) printComments(p *plan.Plan) {
	for _, k := range p.Comments {
		state := c.t("comment.open")
		switch {
		case k.ResolvedAt != nil:
			state = c.t("comment.resolved", oneLine(k.ResolvedBy))
		case k.AnsweredAt != nil && k.Answer != "":
			state = c.t("comment.answered_text", oneLine(k.AnsweredBy), oneLine(k.Answer))
		case k.AnsweredAt != nil:
			state = c.t("comment.answered", oneLine(k.AnsweredBy))
		}
		c.say("comment.line", k.ID, c.l.commentOn(k.Step), oneLine(k.Author), k.Revision,
			k.At.Local().Format(time.DateTime+" MST"), oneLine(k.Text), state)
	}
}
