package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/einoplan/plan"
)

func init() {
	commands["check"] = command{flags: []string{"json"}, readOnly: true, run: (*cli).check}
}

// exitPending is check's exit status when an upgrade left something to do.
const exitPending = 5

// check reports, reading only, what an upgrade left to do in the plans folder: plans to
// migrate, approvals to give again, kept revisions nobody can read, an approval key where
// 0.1.0 kept it, files set aside. It exits with exitPending when anything is left.
func (c *cli) check([]string) error {
	r, err := c.store.Check(c.ctx)
	if err != nil {
		return err
	}
	if c.jsonOut {
		if err := c.writeJSON(r); err != nil {
			return err
		}
	}
	todo := 0
	say := func(format string, args ...any) {
		todo++
		if !c.jsonOut {
			fmt.Fprintf(c.stdout, format+"\n", args...)
		}
	}
	for _, p := range r.Plans {
		switch {
		case p.Error != "":
			say("%s: cannot be checked: %s", p.Name, p.Error)
			continue
		case p.Format > r.Format:
			say("%s r%d: file format %d is newer than this planctl knows (%d); use a newer planctl", p.Name, p.Revision, p.Format, r.Format)
			continue
		}
		if len(p.Convertible) > 0 {
			say("%s r%d: format %d; kept %s in the format of 0.1.0, not served until `planctl migrate` converts them",
				p.Name, p.Revision, p.Format, revList(p.Convertible))
		} else if p.NeedsMigrate {
			say("%s r%d: format %d; `planctl migrate` brings the file to format %d", p.Name, p.Revision, p.Format, r.Format)
		}
		if p.UnreadableRevision != 0 {
			say("%s r%d: kept revision %d cannot be verified (%s), so it and older ones are not served; no migration can restore them",
				p.Name, p.Revision, p.UnreadableRevision, p.UnreadableReason)
		}
		if p.Reapprove != "" {
			say("%s r%d: its approval no longer holds (%s): %s", p.Name, p.Revision, p.Reapprove, reapproveAdvice(p.Name, p.Revision, p.Reapprove))
		}
		if p.NamesNoTools {
			say("%s r%d: approved, but no step names a tool it may use in (uses …), as plans written before (uses …) existed do not: under Config.GatedTools every gated call of it is refused; "+
				"add (uses TOOL) to the steps that need one (`planctl export %s -`, `planctl import %s FILE`) and approve it again", p.Name, p.Revision, p.Name, p.Name)
		}
	}
	switch {
	case r.LegacyKey != "" && r.LegacyData:
		say("an approval key is at %s, inside the plans folder, where 0.1.0 kept it, but whoever can write plan files may have planted it: "+
			"the approvals it sealed read as not approved until `planctl migrate -adopt-key` moves it beside the folder, if you trust it", r.LegacyKey)
	case r.LegacyKey != "":
		say("an approval key is at %s, inside the plans folder: no plan file here is in 0.1.0's format, so 0.1.0 did not leave it and it may have been planted; "+
			"it is never used: remove it", r.LegacyKey)
	}
	for _, s := range r.Strays {
		say("set aside: %s (a file that stood where history goes); look at it, then remove it", s)
	}
	if todo == 0 {
		if !c.jsonOut {
			fmt.Fprintf(c.stdout, "%d plans checked: nothing to do\n", len(r.Plans))
		}
		return nil
	}
	return &cliError{exit: exitPending, msg: fmt.Sprintf("%s: %d to do (listed above)", c.loc.shown, todo)}
}

// reapproveAdvice says what to do about an approval that no longer holds.
func reapproveAdvice(name string, rev int64, why string) string {
	switch why {
	case "key_missing":
		return fmt.Sprintf("no approval key was found; review the plan and run `planctl approve %s -rev %d`", name, rev)
	case "key_changed":
		return fmt.Sprintf("it was sealed under another key; review the plan and run `planctl approve %s -rev %d`", name, rev)
	}
	return fmt.Sprintf("the file was edited after it was approved; review it and run `planctl approve %s -rev %d`", name, rev)
}

// revList is revisions as "revision 3" or "revisions 3, 2, 1".
func revList(revs []int64) string {
	out := make([]string, len(revs))
	for i, r := range revs {
		out[i] = strconv.FormatInt(r, 10)
	}
	if len(out) == 1 {
		return "revision " + out[0]
	}
	return "revisions " + strings.Join(out, ", ")
}

// upgradeLeftovers marks the listed plans an upgrade left something to do for, as check
// reports it (a migration, an approval to give again, history nobody can verify), with what
// list adds to their approval: such an approval reads "no" until then. It asks the Store
// only when some listed plan reads as not approved; nil when none needs it.
func (c *cli) upgradeLeftovers(listing *plan.Listing) map[string]string {
	ask := false
	for _, p := range listing.Plans {
		ask = ask || p.Approval == nil
	}
	if !ask {
		return nil
	}
	r, err := c.store.Check(c.ctx)
	if err != nil {
		return nil // list still lists; check itself reports the failure
	}
	var out map[string]string
	for _, p := range r.Plans {
		if p.Reapprove != "" || p.NeedsMigrate || p.UnreadableRevision != 0 || p.Format > r.Format {
			if out == nil {
				out = map[string]string{}
			}
			out[p.Name] = ", see check"
		}
	}
	return out
}

// plansCount is n plans, in words: "1 plan", "3 plans".
func plansCount(n int) string {
	if n == 1 {
		return "1 plan"
	}
	return strconv.Itoa(n) + " plans"
}
