package main

import (
	"fmt"
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
		return &cliError{exit: exitUsage, msg: fmt.Sprintf(
			"approve needs -rev N, the revision you reviewed: `planctl show %s` prints it", name)}
	}
	if *c.rev < 1 {
		return &cliError{exit: exitUsage, msg: "-rev 0 names no revision: revisions start at 1"}
	}
	by, err := c.person("approves")
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
	fmt.Fprintf(c.stdout, "%s: revision %d approved by %s; the plan is now at revision %d\n",
		p.Name, approved.Revision, oneLine(approved.By), p.Revision)
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
		fmt.Fprintf(c.stdout, "%s: not approved, nothing to revoke (revision %d)\n", p.Name, p.Revision)
		return nil
	}
	what := "the approval"
	if a := before.Approval; a != nil {
		what = fmt.Sprintf("the approval of revision %d by %s", a.Revision, oneLine(a.By))
	}
	fmt.Fprintf(c.stdout, "%s: %s revoked; the plan is now at revision %d\n", p.Name, what, p.Revision)
	return nil
}

// approvalText says whether a plan is approved, which revision and by whom.
func approvalText(a *api.Approval) string {
	if a == nil {
		return "not approved"
	}
	return fmt.Sprintf("approved at r%d by %s, %s", a.Revision, oneLine(a.By), a.At.Local().Format(time.DateTime+" MST"))
}

// approvalCell is approvalText for a column of list, saying when a run waits for a decision.
func approvalCell(a *api.Approval, w *api.Waiting) string {
	if a == nil && w != nil {
		return "no, " + clip(oneLine(w.Agent), 16) + " waits"
	}
	if a == nil {
		return "no"
	}
	return fmt.Sprintf("r%d by %s", a.Revision, clip(oneLine(a.By), 20))
}

// person is who -by names, else $USER.
func (c *cli) person(verb string) (string, error) {
	if c.set["by"] {
		return c.by, nil
	}
	by := os.Getenv("USER")
	if strings.TrimSpace(by) == "" {
		return "", &cliError{exit: exitUsage, msg: "$USER is not set: say who " + verb + " with -by WHO"}
	}
	return by, nil
}

// reject turns down exactly the revision given with -rev, saying why with -feedback: the
// Store records it (History, Watch), and a run waiting on that revision gets the feedback.
func (c *cli) reject(args []string) error {
	name := args[0]
	if c.rev == nil || *c.rev < 1 {
		return &cliError{exit: exitUsage, msg: fmt.Sprintf(
			"reject needs -rev N, the revision you reviewed: `planctl show %s` prints it", name)}
	}
	if strings.TrimSpace(c.feedback) == "" {
		return &cliError{exit: exitUsage, msg: "reject needs -feedback TEXT: say why, for the agent that revises the plan"}
	}
	by, err := c.person("rejects")
	if err != nil {
		return err
	}
	p, err := c.store.Reject(c.ctx, name, *c.rev, by, c.feedback)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s: revision %d rejected by %s; the plan is now at revision %d\n",
		p.Name, *c.rev, oneLine(by), p.Revision)
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
			fmt.Fprintf(c.stdout, "%s: revision %d is as revision %d, approved by %s\n", name, to, r.Approved, oneLine(r.Author))
			return nil
		}
		fmt.Fprintf(c.stdout, "%s: changes since revision %d, approved by %s:\n%s", name, r.Approved, oneLine(r.Author), renderDiff(diff, c.color))
		return nil
	}
	if always {
		fmt.Fprintf(c.stdout, "%s: revision %d; no earlier approval is kept\n", name, to)
	}
	return nil
}

// waitingRunText says which run waits for a decision, on which revision, since when.
func waitingRunText(w *api.Waiting) string {
	who := oneLine(w.Agent)
	if who == "" {
		who = "a run"
	}
	return fmt.Sprintf("%s waits for a decision on r%d since %s", who, w.Revision, w.Since.Local().Format(time.DateTime+" MST"))
}

// rejectionText says which revision was rejected, by whom, when and why.
func rejectionText(r *api.Rejection) string {
	s := fmt.Sprintf("r%d by %s, %s", r.Revision, oneLine(r.By), r.At.Local().Format(time.DateTime+" MST"))
	if r.Feedback != "" {
		s += ": " + oneLine(r.Feedback)
	}
	return s
}
