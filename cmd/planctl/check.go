package main

import (
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
	say := func(key string, args ...any) {
		todo++
		if !c.jsonOut {
			c.say(key, args...)
		}
	}
	for _, p := range r.Plans {
		switch {
		case p.Error != "":
			say("check.error", p.Name, p.Error)
			continue
		case p.Format > r.Format:
			say("check.newer", p.Name, p.Revision, p.Format, r.Format)
			continue
		}
		if len(p.Convertible) > 0 {
			say("check.convertible", p.Name, p.Revision, p.Format, c.l.revList(p.Convertible))
		} else if p.NeedsMigrate {
			say("check.migrate", p.Name, p.Revision, p.Format, r.Format)
		}
		if p.UnreadableRevision != 0 {
			say("check.unreadable", p.Name, p.Revision, p.UnreadableRevision, p.UnreadableReason)
		}
		if p.Reapprove != "" {
			say("check.reapprove", p.Name, p.Revision, p.Reapprove, c.l.reapproveAdvice(p.Name, p.Revision, p.Reapprove))
		}
		if p.NamesNoTools {
			say("check.names_no_tools", p.Name, p.Revision)
		}
	}
	switch {
	case r.LegacyKey != "" && r.LegacyData:
		say("check.legacy_key", r.LegacyKey)
	case r.LegacyKey != "":
		say("check.planted_key", r.LegacyKey)
	}
	for _, s := range r.Strays {
		say("check.stray", s)
	}
	if todo == 0 {
		if !c.jsonOut {
			c.say("check.clean", len(r.Plans))
		}
		return nil
	}
	return &cliError{exit: exitPending, msg: c.t("check.todo", c.loc.shown, todo)}
}

// reapproveAdvice says what to do about an approval that no longer holds.
func (l lang) reapproveAdvice(name string, rev int64, why string) string {
	switch why {
	case "key_missing":
		return l.t("check.key_missing", name, rev)
	case "key_changed":
		return l.t("check.key_changed", name, rev)
	}
	return l.t("check.edited", name, rev)
}

// revList is revisions as "revision 3" or "revisions 3, 2, 1".
func (l lang) revList(revs []int64) string {
	out := make([]string, len(revs))
	for i, r := range revs {
		out[i] = strconv.FormatInt(r, 10)
	}
	if len(out) == 1 {
		return l.t("check.rev_one", out[0])
	}
	return l.t("check.revs", strings.Join(out, ", "))
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
			out[p.Name] = c.t("list.see_check")
		}
	}
	return out
}

// plansCount is n plans, in words: "1 plan", "3 plans".
func (l lang) plansCount(n int) string {
	if n == 1 {
		return l.t("plans.one")
	}
	return l.t("plans.other", n)
}
