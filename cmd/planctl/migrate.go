package main

import (
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
			if len(r.Converted) > 0 {
				c.say("migrate.converted", r.Name, r.Revision, c.l.revList(r.Converted))
			} else {
				c.say("migrate.format", r.Name, r.Revision)
			}
		}
		if r.UnreadableRevision != 0 && !c.jsonOut {
			c.say("migrate.unreadable", r.Name, r.Revision, r.UnreadableRevision, r.UnreadableReason)
		}
	}
	if c.jsonOut {
		return c.writeJSON(reports)
	}
	if changed == 0 {
		c.say("migrate.nothing", len(names))
	}
	return nil
}

// sayKey tells what migrate did with a key found inside the plans folder, and reports
// whether there was one.
func (c *cli) sayKey(r plan.MigrateReport) bool {
	switch {
	case r.AdoptedKey != "":
		c.say("migrate.adopted", r.AdoptedKey, len(r.Validated))
		for _, a := range r.Validated {
			c.say("migrate.validated", a.Name, a.Revision, a.By)
		}
	case r.KeyNotAdopted != "" && !c.adoptKey:
		c.say("migrate.not_adopted", r.KeyNotAdopted)
	case r.KeyNotAdopted != "":
		c.say("migrate.not_legacy", r.KeyNotAdopted)
	default:
		return false
	}
	return true
}
