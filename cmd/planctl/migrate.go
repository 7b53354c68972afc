package main

import (
	"fmt"

	"github.com/einoplan/plan"
)

func init() {
	commands["migrate"] = command{args: []string{"NAME"}, optional: 1, flags: []string{"json"}, run: (*cli).migrate}
}

// migrate converts what an upgrade left in NAME, or in every plan: the kept revisions of
// 0.1.0, served again once converted, and the plan file's format line, each plan's file
// rewritten through the Store at its revision (an agent's write meanwhile is kept: migrate
// starts again from it). A second run finds nothing to do.
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
	for _, name := range names {
		r, err := c.store.Migrate(c.ctx, name)
		if err != nil {
			return err
		}
		reports = append(reports, r)
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
