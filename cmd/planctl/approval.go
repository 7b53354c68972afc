package main

import (
	"os"
	"strings"
	"time"

	"github.com/einoplan/plan/api"

	"github.com/einoplan/plan"
)

// approve approves exactly the revision given with -rev, as who -by names (default $USER).
// The Store refuses it when the plan is no longer at that revision, so nobody approves
// what they did not see.
func (c *cli) approve(args []string) error {
	name := args[0]
	if c.rev == nil {
		if err := c.sinceApproved(name, 0, true); err != nil {
			return err
		}
		return &cliError{exit: exitUsage, msg: c.t("approve.needs_rev", name)}
	}
	if *c.rev < 1 {
		return &cliError{exit: exitUsage, msg: c.t("approve.rev0")}
	}
	by, err := c.person("person.approves")
	if err != nil {
		return err
	}
	p, err := c.store.Approve(c.ctx, name, *c.rev, by)
	if err != nil {
		return err
	}
	approved := api.Approval{Revision: *c.rev, By: by}
	if p.Approval != nil {
		approved = *p.Approval
	}
	c.say("approve.done", p.Name, approved.Revision, oneLine(approved.By), p.Revision)
	return c.sinceApproved(name, approved.Revision, false)
}

// revoke withdraws a plan's approval; a plan that is not approved is left as it is.
func (c *cli) revoke(args []string) error {
	name := args[0]
	before, err := c.store.Get(c.ctx, name)
	if err != nil {
		return err
	}
	p, err := c.store.Revoke(c.ctx, name)
	if err != nil {
		return err
	}
	if !c.changed {
		c.say("revoke.nothing", p.Name, p.Revision)
		return nil
	}
	if a := before.Approval; a != nil {
		c.say("revoke.done_of", p.Name, a.Revision, oneLine(a.By), p.Revision)
		return nil
	}
	c.say("revoke.done", p.Name, p.Revision)
	return nil
}

// approvalText says whether a plan is approved, which revision and by whom.
func (l lang) approvalText(a *api.Approval) string {
	if a == nil {
		return l.t("approval.none")
	}
	return l.t("approval.text", a.Revision, oneLine(a.By), a.At.Local().Format(time.DateTime+" MST"))
}

// approvalCell is approvalText for a column of list, saying when a run waits for a decision.
func (l lang) approvalCell(a *api.Approval, w *api.Waiting) string {
	if a == nil && w != nil {
		return l.t("approval.cell_waits", clip(oneLine(w.Agent), 16))
	}
	if a == nil {
		return l.t("approval.cell_no")
	}
	return l.t("approval.cell", a.Revision, clip(oneLine(a.By), 20))
}

// person is who -by names, else $USER; verbKey is the message that says what they do.
func (c *cli) person(verbKey string) (string, error) {
	if c.set["by"] {
		return c.by, nil
	}
	by := os.Getenv("USER")
	if strings.TrimSpace(by) == "" {
		return "", &cliError{exit: exitUsage, msg: c.t(verbKey)}
	}
	return by, nil
}

// reject turns down exactly the revision given with -rev, saying why with -feedback: the
// Store records it (History, Watch), and a run waiting on that revision gets the feedback.
func (c *cli) reject(args []string) error {
	name := args[0]
	if c.rev == nil || *c.rev < 1 {
		return &cliError{exit: exitUsage, msg: c.t("reject.needs_rev", name)}
	}
	if strings.TrimSpace(c.feedback) == "" {
		return &cliError{exit: exitUsage, msg: c.t("reject.needs_feedback")}
	}
	by, err := c.person("person.rejects")
	if err != nil {
		return err
	}
	p, err := c.store.Reject(c.ctx, name, *c.rev, by, c.feedback)
	if err != nil {
		return err
	}
	c.say("reject.done", p.Name, *c.rev, oneLine(by), p.Revision)
	return nil
}

// sinceApproved prints what changed in plan name since its last approved revision before
// rev (0: the newest), when the history still keeps it: what a person approving again
// needs to see. With always, it also says when there is nothing to compare with.
func (c *cli) sinceApproved(name string, rev int64, always bool) error {
	cur, err := c.store.Get(c.ctx, name)
	if err != nil {
		return err
	}
	revs, err := c.store.History(c.ctx, name)
	if err != nil {
		return err
	}
	to := cur.Revision
	if rev > 0 {
		to = rev
	}
	for _, r := range revs {
		if r.Action != plan.ActionApprove || r.Approved == 0 || r.Approved >= to {
			continue
		}
		diff, err := c.store.Diff(c.ctx, name, r.Approved, to)
		if err != nil {
			return nil // no longer kept: nothing to compare with
		}
		if diff == "" {
			c.say("since.same", name, to, r.Approved, oneLine(r.Author))
			return nil
		}
		c.say("since.changes", name, r.Approved, oneLine(r.Author), renderDiff(diff, c.color))
		return nil
	}
	if always {
		c.say("since.none", name, to)
	}
	return nil
}

// waitingRunText says which run waits for a decision, on which revision, since when.
func (l lang) waitingRunText(w *api.Waiting) string {
	who := oneLine(w.Agent)
	if who == "" {
		who = l.t("approval.a_run")
	}
	return l.t("approval.waiting", who, w.Revision, w.Since.Local().Format(time.DateTime+" MST"))
}

// rejectionText says which revision was rejected, by whom, when and why.
func (l lang) rejectionText(r *api.Rejection) string {
	when := r.At.Local().Format(time.DateTime + " MST")
	if r.Feedback != "" {
		return l.t("rejection.feedback", r.Revision, oneLine(r.By), when, oneLine(r.Feedback))
	}
	return l.t("rejection.text", r.Revision, oneLine(r.By), when)
}
