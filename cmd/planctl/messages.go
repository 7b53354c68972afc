package main

import (
	"errors"
	"fmt"

	"github.com/einoplan/plan/api"

	"github.com/einoplan/plan"
)

// fail prints err in planctl's own words and returns the exit status for it. A plan error
// is described from its code and facts (the plan's name, its current revision), never
// from the library's message, which speaks to models in their tool vocabulary.
func (c *cli) fail(err error) int {
	var ce *cliError
	if errors.As(err, &ce) {
		if ce.code != "" {
			fmt.Fprintf(c.stderr, "planctl: %s: %s\n", ce.code, ce.msg)
		} else {
			fmt.Fprintf(c.stderr, "planctl: %s\n", ce.msg)
		}
		return ce.exit
	}
	var pe *plan.Error
	if !errors.As(err, &pe) {
		fmt.Fprintf(c.stderr, "planctl: %v\n", err)
		return exitFailed
	}
	msg, exit := c.describe(pe)
	fmt.Fprintf(c.stderr, "planctl: %s: %s\n", pe.Code, msg)
	return exit
}

// describe says what a plan error means for the command that got it, and what to run next.
func (c *cli) describe(pe *plan.Error) (string, int) {
	name := c.planName()
	switch pe.Code {
	case plan.CodeRevisionConflict:
		if c.command == "approve" {
			return c.approveConflict(pe), exitConflict
		}
		if c.rev != nil && *c.rev == 0 {
			return fmt.Sprintf("%s already exists, at revision %d; nothing was changed. See it with `planctl show %s`, or replace it with -rev %d",
				name, pe.CurrentRevision, name, pe.CurrentRevision), exitConflict
		}
		given := ""
		if c.rev != nil {
			given = fmt.Sprintf(", not %d", *c.rev)
		}
		return fmt.Sprintf("%s is at revision %d%s; nothing was changed. Check it with `planctl show %s` and retry with -rev %d",
			name, pe.CurrentRevision, given, name, pe.CurrentRevision), exitConflict
	case plan.CodeNotFound:
		if pe.Reason == "no_revision" {
			if pe.Revision > pe.CurrentRevision {
				return fmt.Sprintf("%s has no revision %d yet: it is at revision %d", name, pe.Revision, pe.CurrentRevision), exitNotFound
			}
			return fmt.Sprintf("revision %d of %s is no longer kept (it is at revision %d); `planctl log %s` lists the kept revisions",
				pe.Revision, name, pe.CurrentRevision, name), exitNotFound
		}
		switch pe.Reason {
		case "comment_unknown":
			return fmt.Sprintf("%s has no comment %s; `planctl show %s` lists its comments", name, oneLine(pe.Value), name), exitNotFound
		case "revision_mismatch":
			return fmt.Sprintf("the kept copy of revision %d of %s (or of a revision after it) does not match the SHA-256 that names it, so it is not shown (it is at revision %d); `planctl log %s` lists the revisions that can be verified",
				pe.Revision, name, pe.CurrentRevision, name), exitNotFound
		case "revision_unverifiable":
			return fmt.Sprintf("revision %d of %s was kept by an earlier release under a CRC-32C, which cannot prove it, so it is not shown (it is at revision %d); `planctl log %s` lists the revisions that can be verified",
				pe.Revision, name, pe.CurrentRevision, name), exitNotFound
		}
		msg := fmt.Sprintf("no plan named %s in %s; `planctl list` shows the plans there", name, c.loc.shown)
		if listing, ok := c.nestedPlans(); ok && hasPlan(listing, name) {
			msg = fmt.Sprintf("no plan named %s in %s, but its plans folder has one: use -dir %s", name, c.loc.shown, c.loc.nested)
		}
		return msg, exitNotFound
	case plan.CodeCorrupt:
		return fmt.Sprintf("%s cannot be read: its file is not in the plan format. Fix the file, or remove it with `planctl rm %s` (without -rev)",
			name, name), exitFailed
	case plan.CodeTooLarge:
		if c.command == "import" {
			return fmt.Sprintf("%s is larger than a plan may be (%d bytes); shorten it or split it into several plans",
				c.args[1], api.DefaultMaxContentBytes), exitFailed
		}
		return fmt.Sprintf("%s cannot be read: its file is larger than a plan may be. Remove it with `planctl rm %s` (without -rev)",
			name, name), exitFailed
	case plan.CodeInvalidArgument:
		switch {
		case pe.Reason == "step_missing":
			return fmt.Sprintf("%s has no step %d: its checklist has %d steps, as `planctl show %s` lists them",
				name, pe.Step, pe.Steps, name), exitFailed
		case pe.Reason == "after_cycle":
			return fmt.Sprintf("the steps of %s would wait for each other in a cycle (steps %s), so none of them could ever start; change an (after …) so one of them does not wait. Nothing was changed",
				name, joinInts(pe.Waits)), exitFailed
		case pe.Field == "by":
			return fmt.Sprintf("-by must name who approves: not empty, at most 1024 bytes of UTF-8 (%s)", pe.Reason), exitUsage
		case c.command == "take":
			return fmt.Sprintf("take refused the change to %s (%s)", name, pe.Reason), exitFailed
		case c.command == "budget":
			return fmt.Sprintf("%s is not a budget: write \"200k tokens\", \"1h\" or \"200k tokens, 1h\"", oneLine(c.args[len(c.args)-1])), exitUsage
		}
		return fmt.Sprintf("%s refused the change to %s: a title, status or author over 1024 bytes or not UTF-8", c.command, name), exitFailed
	case plan.CodeIllegalTransition:
		if c.command == "take" {
			return fmt.Sprintf("step %d of %s is %s: only a step in progress can change hands, or a pending one be started; `planctl show %s` shows the steps",
				pe.Step, name, pe.From, name), exitFailed
		}
		return fmt.Sprintf("step %d of %s cannot move from %s to %s", pe.Step, name, pe.From, pe.To), exitFailed
	case plan.CodeStepHeld:
		return fmt.Sprintf("step %d of %s is held by %s; `planctl take %s %d -to WHO` hands it over, `planctl take %s %d` releases it",
			pe.Step, name, oneLine(pe.Agent), name, pe.Step, name, pe.Step), exitFailed
	case plan.CodeNotApproved:
		return fmt.Sprintf("%s is not approved; review it with `planctl show %s`, then `planctl approve %s -rev N`", name, name, name), exitFailed
	case plan.CodeBackendError:
		return fmt.Sprintf("the plan storage at %s failed: %v; nothing may have changed, try again", c.loc.shown, cause(pe)), exitFailed
	case plan.CodeUnknownOutcome:
		return fmt.Sprintf("the plan storage at %s failed during the change (%v), so whether it landed is unknown: check with `planctl show %s`",
			c.loc.shown, cause(pe), name), exitFailed
	case plan.CodeCanceled:
		return "interrupted before anything was changed", exitFailed
	}
	return fmt.Sprintf("%s failed on %s", c.command, name), exitFailed
}

// approveConflict explains an approval refused because the plan is no longer at the
// revision given: what to look at before approving the current one, or that the revision
// given is approved already.
func (c *cli) approveConflict(pe *plan.Error) string {
	name, rev, cur := c.planName(), *c.rev, pe.CurrentRevision
	if p, err := c.store.Get(c.ctx, name); err == nil {
		cur = p.Revision
		if a := p.Approval; a != nil && a.Revision == rev {
			return fmt.Sprintf("revision %d of %s is approved already, by %s; nothing was changed (the plan is at revision %d)",
				rev, name, oneLine(a.By), cur)
		}
	}
	if rev > cur {
		return fmt.Sprintf("%s is at revision %d, not %d; nothing was approved. Review it with `planctl show %s` and approve with -rev %d",
			name, cur, rev, name, cur)
	}
	return fmt.Sprintf("%s changed since revision %d: it is at revision %d now, and nothing was approved. "+
		"See what changed with `planctl diff %s %d %d`, then approve with -rev %d", name, rev, cur, name, rev, cur, cur)
}

// warn reports a plan file that list or watch cannot read.
func (c *cli) warn(w api.Warning) {
	var why string
	switch w.Code {
	case plan.CodeCorrupt:
		why = fmt.Sprintf("its file is not in the plan format; `planctl rm %s` removes it", w.Name)
	case plan.CodeTooLarge:
		why = fmt.Sprintf("its file is larger than a plan may be; `planctl rm %s` removes it", w.Name)
	default:
		why = "the storage failed to read it"
	}
	fmt.Fprintf(c.stderr, "planctl: warning: plan %s cannot be read (%s): %s\n", w.Name, w.Code, why)
}

// planName is the NAME argument of the command, if it has one.
func (c *cli) planName() string {
	if len(c.args) > 0 && c.command != "list" && c.command != "watch" {
		return c.args[0]
	}
	return "the plan"
}

func hasPlan(listing *plan.Listing, name string) bool {
	for _, p := range listing.Plans {
		if p.Name == name {
			return true
		}
	}
	for _, w := range listing.Warnings {
		if w.Name == name {
			return true
		}
	}
	return false
}

// cause is the storage's own error under a plan error, or the code when there is none.
func cause(pe *plan.Error) any {
	if pe.Err != nil {
		return pe.Err
	}
	return pe.Code
}
