package main

import (
	"fmt"

	"github.com/einoplan/plan"
)

func init() {
	commands["migrate"] = command{args: []string{"NAME"}, optional: 1, flags: []string{"json", "adopt-key"}, run: (*cli).migrate}
}

// migrate converts what an upgrade left in NAME, or in every plan: the kept revisions of
// 0.1.0, served again once converted, and the plan file's format line, each plan's file
// rewritten through the Store at its revision (an agent's write meanwhile is kept: migrate
// starts again from it). A second run finds nothing to do. With -adopt-key it adopts the key
// 0.1.0 kept inside the plans folder, where the folder still holds 0.1.0's files, and says
// which approvals that makes valid: whoever can write plan files could have put a key there.
func (c *cli) migrate(args []string) error {
	names := args
	if len(names) == 0 {
		r, err := c.store.Check(c.ctx)
		if err != nil {
			return err
		}
		for _, p := range r.Plans {
			if p.Error == "" {
				names = append(names, p.Name)
			}
		}
	}
	reports := []plan.MigrateReport{}
	changed := 0
	keyTold := false
	for _, name := range names {
		r, err := c.store.Migrate(c.ctx, name)
		if err != nil {
			return err
		}
		reports = append(reports, r)
		if r.AdoptedKey != "" {
			changed++
		}
		if !c.jsonOut && !keyTold {
			keyTold = c.sayKey(r)
		}
		if len(r.Converted) == 0 && !r.Rewritten {
			continue
		}
		changed++
		if !c.jsonOut {
			what := "the file now names its format"
			if len(r.Converted) > 0 {
				what = "kept " + revList(r.Converted) + " converted, served again"
			}
			fmt.Fprintf(c.stdout, "%s r%d: %s\n", r.Name, r.Revision, what)
		}
		if r.UnreadableRevision != 0 && !c.jsonOut {
			fmt.Fprintf(c.stdout, "%s r%d: kept revision %d cannot be verified (%s) and stays unserved\n", r.Name, r.Revision, r.UnreadableRevision, r.UnreadableReason)
		}
	}
	if c.jsonOut {
		return c.writeJSON(reports)
	}
	if changed == 0 {
		fmt.Fprintf(c.stdout, "%d plans: nothing to migrate\n", len(names))
	}
	return nil
}

// sayKey tells what migrate did with a key found inside the plans folder, and reports
// whether there was one.
func (c *cli) sayKey(r plan.MigrateReport) bool {
	switch {
	case r.AdoptedKey != "":
		fmt.Fprintf(c.stdout, "adopted the approval key at %s (moved beside the folder); approvals it makes valid: %d\n", r.AdoptedKey, len(r.Validated))
		for _, a := range r.Validated {
			fmt.Fprintf(c.stdout, "  %s r%d approved by %s\n", a.Name, a.Revision, a.By)
		}
	case r.KeyNotAdopted != "" && !c.adoptKey:
		fmt.Fprintf(c.stdout, "the approval key at %s is not adopted: whoever can write plan files may have put it there; "+
			"if 0.1.0 left it, `planctl migrate -adopt-key` adopts it\n", r.KeyNotAdopted)
	case r.KeyNotAdopted != "":
		fmt.Fprintf(c.stdout, "the approval key at %s is not adopted: no plan file here is in 0.1.0's format, so 0.1.0 did not leave it; remove it\n", r.KeyNotAdopted)
	default:
		return false
	}
	return true
}
