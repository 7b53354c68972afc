package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan"
)

// log prints the kept revisions of a plan, newest first, one line each. An approval is
// shown with its approver and the revision approved, read from that revision itself.
func (c *cli) log(args []string) error {
	name := args[0]
	revs, err := c.store.History(c.ctx, name)
	if err != nil {
		return err
	}
	if c.jsonOut {
		return c.writeJSON(revs)
	}
	tw := newColumns(c.stdout)
	expiries := slices.ContainsFunc(revs, func(r plan.Revision) bool { return r.Expired != "" })
	header := c.t("log.header")
	if expiries {
		header += c.t("log.header_expired") // whose hold had expired when the change moved its step
	}
	fmt.Fprintln(tw, header)
	for _, r := range revs {
		action, by := string(r.Action), r.Author
		if action == "" {
			action = "?"
		} else {
			action = c.l.word("action.", action)
		}
		if r.Action == plan.ActionApprove {
			if p, err := c.store.GetRevision(c.ctx, name, r.Revision); err == nil && p.Approval != nil {
				action = c.t("log.approve", p.Approval.Revision)
				by = p.Approval.By
			}
		}
		if rj := r.Rejection; r.Action == plan.ActionReject && rj != nil {
			action = c.t("log.reject", rj.Revision, strconv.Quote(clip(oneLine(rj.Feedback), 40)))
		}
		if by == "" {
			by = "-"
		}
		line := fmt.Sprintf("%d\t%s\t%s\t%s\t%s", r.Revision, r.UpdatedAt.Local().Format(time.DateTime),
			action, clip(oneLine(by), 30), clip(oneLine(r.Status), 30))
		if expiries {
			expired := "-"
			if r.Expired != "" {
				expired = c.t("log.expired", clip(oneLine(r.Expired), 30), r.ExpiredStep)
			}
			line += "\t" + expired
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch last := revs[len(revs)-1]; {
	case last.OlderUnverified:
		c.say("log.unverified", last.Revision)
	case last.Revision > 1:
		c.say("log.gone", last.Revision)
	}
	return nil
}

// diff prints what changed between two kept revisions: FROM defaults to the revision
// before TO, TO to the current revision.
func (c *cli) diff(args []string) error {
	name := args[0]
	var bounds [2]int64
	for i, a := range args[1:] {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil || n < 1 {
			return &cliError{exit: exitUsage, msg: c.t("diff.not_revision", a, name)}
		}
		bounds[i] = n
	}
	from, to := bounds[0], bounds[1]
	if to == 0 {
		cur, err := c.store.Get(c.ctx, name)
		if err != nil {
			return err
		}
		to = cur.Revision
	}
	if from == 0 {
		if to == 1 {
			return &cliError{exit: exitFailed, msg: c.t("diff.first", name)}
		}
		from = to - 1
	}
	out, err := c.store.Diff(c.ctx, name, from, to)
	if err != nil {
		return err
	}
	if out == "" {
		c.say("diff.same", name, from, to)
		return nil
	}
	_, err = io.WriteString(c.stdout, renderDiff(out, c.color))
	return err
}

// ANSI colours of diff lines.
const (
	colorAdded   = "\x1b[32m"
	colorRemoved = "\x1b[31m"
	colorHunk    = "\x1b[36m"
	colorBold    = "\x1b[1m"
)

// renderDiff makes diff safe for a terminal, as renderBody does, and with color colours
// its lines as diff(1) users expect.
func renderDiff(diff string, color bool) string {
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	inHunks := false // past the first @@ line, where every +/- line is a body line
	for i, line := range lines {
		line = printable(line, '?')
		inHunks = inHunks || strings.HasPrefix(line, "@@ ")
		if color {
			code := ""
			switch {
			case !inHunks && (strings.HasPrefix(line, "+++ ") || strings.HasPrefix(line, "--- ")):
				code = colorBold
			case strings.HasPrefix(line, "+"):
				code = colorAdded
			case strings.HasPrefix(line, "-"):
				code = colorRemoved
			case strings.HasPrefix(line, "@@ "):
				code = colorHunk
			}
			if code != "" {
				line = code + line + colorReset
			}
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n") + "\n"
}
