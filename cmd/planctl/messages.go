package main

import (
	"errors"

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
			c.sayErr("fail.code", ce.code, ce.msg)
		} else {
			c.sayErr("fail.plain", ce.msg)
		}
		return ce.exit
	}
	var pe *plan.Error
	if !errors.As(err, &pe) {
		c.sayErr("fail.plain", err)
		return exitFailed
	}
	msg, exit := c.describe(pe)
	c.sayErr("fail.code", pe.Code, msg)
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
			return c.t("err.exists", name, pe.CurrentRevision), exitConflict
		}
		if c.rev != nil {
			return c.t("err.conflict_not", name, pe.CurrentRevision, *c.rev), exitConflict
		}
		return c.t("err.conflict", name, pe.CurrentRevision), exitConflict
	case plan.CodeNotFound:
		if pe.Reason == "no_revision" {
			if pe.Revision > pe.CurrentRevision {
				return c.t("err.no_revision_yet", name, pe.Revision, pe.CurrentRevision), exitNotFound
			}
			return c.t("err.revision_gone", pe.Revision, name, pe.CurrentRevision), exitNotFound
		}
		switch pe.Reason {
		case "comment_unknown":
			return c.t("err.comment_unknown", name, oneLine(pe.Value)), exitNotFound
		case "revision_mismatch":
			return c.t("err.revision_mismatch", pe.Revision, name, pe.CurrentRevision), exitNotFound
		case "revision_unverifiable":
			return c.t("err.revision_unverifiable", pe.Revision, name, pe.CurrentRevision), exitNotFound
		}
		msg := c.t("err.no_plan", name, c.loc.shown)
		if listing, ok := c.nestedPlans(); ok && hasPlan(listing, name) {
			msg = c.t("err.no_plan_nested", name, c.loc.shown, c.loc.nested)
		}
		return msg, exitNotFound
	case plan.CodeCorrupt:
		return c.t("err.corrupt", name), exitFailed
	case plan.CodeRolledBack:
		if pe.Reason == "put_back_or_interrupted" {
			return c.t("err.put_back_or_interrupted", name), exitFailed
		}
		return c.t("err.rolled_back", name), exitFailed
	case plan.CodeTooLarge:
		if c.command == "import" {
			return c.t("err.import_too_large", c.args[1], api.DefaultMaxContentBytes), exitFailed
		}
		return c.t("err.too_large", name), exitFailed
	case plan.CodeInvalidArgument:
		switch {
		case pe.Reason == "step_missing":
			return c.t("err.step_missing", name, pe.Step, pe.Steps), exitFailed
		case pe.Reason == "after_cycle":
			return c.t("err.after_cycle", name, joinInts(pe.Waits)), exitFailed
		case pe.Field == "by":
			return c.t("err.by", pe.Reason), exitUsage
		case c.command == "take":
			return c.t("err.take_refused", name, pe.Reason), exitFailed
		case c.command == "budget":
			return c.t("err.budget", oneLine(c.args[len(c.args)-1])), exitUsage
		}
		return c.t("err.invalid", c.command, name), exitFailed
	case plan.CodeIllegalTransition:
		if c.command == "take" {
			return c.t("err.take_illegal", pe.Step, name, c.l.word("state.", string(pe.From))), exitFailed
		}
		return c.t("err.illegal", pe.Step, name, c.l.word("state.", string(pe.From)), c.l.word("state.", string(pe.To))), exitFailed
	case plan.CodeStepHeld:
		return c.t("err.step_held", pe.Step, name, oneLine(pe.Agent)), exitFailed
	case plan.CodeNotApproved:
		return c.t("err.not_approved", name), exitFailed
	case plan.CodeBackendError:
		return c.t("err.backend", c.loc.shown, cause(pe)), exitFailed
	case plan.CodeUnknownOutcome:
		return c.t("err.unknown_outcome", c.loc.shown, cause(pe), name), exitFailed
	case plan.CodeCanceled:
		return c.t("err.canceled"), exitFailed
	}
	return c.t("err.other", c.command, name), exitFailed
}

// approveConflict explains an approval refused because the plan is no longer at the
// revision given: what to look at before approving the current one, or that the revision
// given is approved already.
func (c *cli) approveConflict(pe *plan.Error) string {
	name, rev, cur := c.planName(), *c.rev, pe.CurrentRevision
	if p, err := c.store.Get(c.ctx, name); err == nil {
		cur = p.Revision
		if a := p.Approval; a != nil && a.Revision == rev {
			return c.t("err.approved_already", rev, name, oneLine(a.By), cur)
		}
	}
	if rev > cur {
		return c.t("err.approve_ahead", name, cur, rev)
	}
	return c.t("err.approve_behind", name, rev, cur)
}

// warn reports a plan file that list or watch cannot read.
func (c *cli) warn(w api.Warning) {
	var why string
	switch w.Code {
	case plan.CodeCorrupt:
		why = c.t("warn.corrupt", w.Name)
	case plan.CodeTooLarge:
		why = c.t("warn.too_large", w.Name)
	case plan.CodeRolledBack:
		why = c.t("warn.rolled_back", w.Name)
	default:
		why = c.t("warn.failed")
	}
	c.sayErr("warn.line", w.Name, w.Code, why)
}

// planName is the NAME argument of the command, if it has one.
func (c *cli) planName() string {
	if len(c.args) > 0 && c.command != "list" && c.command != "watch" {
		return c.args[0]
	}
	return c.t("err.the_plan")
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
