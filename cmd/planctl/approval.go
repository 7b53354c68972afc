package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/einoplan/plan"
)

// approve approves exactly the revision given with -rev, as who -by names (default $USER).
// The Store refuses it when the plan is no longer at that revision, so nobody approves
// what they did not see.
func (c *cli) approve(args []string) error {
	name := args[0]
	if c.rev == nil {
		return &cliError{exit: exitUsage, msg: fmt.Sprintf(
			"approve needs -rev N, the revision you reviewed: `planctl show %s` prints it", name)}
	}
	if *c.rev < 1 {
		return &cliError{exit: exitUsage, msg: "-rev 0 names no revision: revisions start at 1"}
	}
	by := c.by
	if !c.set["by"] {
		by = os.Getenv("USER")
		if strings.TrimSpace(by) == "" {
			return &cliError{exit: exitUsage, msg: "$USER is not set: say who approves with -by WHO"}
		}
	}
	p, err := c.store.Approve(c.ctx, name, *c.rev, by)
	if err != nil {
		return err
	}
	approved := plan.Approval{Revision: *c.rev, By: by}
	if p.Approval != nil {
		approved = *p.Approval
	}
	fmt.Fprintf(c.stdout, "%s: revision %d approved by %s; the plan is now at revision %d\n",
		p.Name, approved.Revision, oneLine(approved.By), p.Revision)
	return nil
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
func approvalText(a *plan.Approval) string {
	if a == nil {
		return "not approved"
	}
	return fmt.Sprintf("approved at r%d by %s, %s", a.Revision, oneLine(a.By), a.At.Local().Format(time.DateTime+" MST"))
}

// approvalCell is approvalText for a column of list.
func approvalCell(a *plan.Approval) string {
	if a == nil {
		return "no"
	}
	return fmt.Sprintf("r%d by %s", a.Revision, clip(oneLine(a.By), 20))
}
