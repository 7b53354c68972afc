package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/einoplan/plan"
)

// watch shows every plan with its progress, status and current step, and follows every
// change any process makes until interrupted. On a terminal the whole view is redrawn on
// each change; otherwise each change prints one plain line, for logs and scripts.
func (c *cli) watch([]string) error {
	if c.set["acp"] {
		return c.watchACP()
	}
	// Watch before List: a change landing between the two is then never missed.
	changes, err := c.store.Watch(c.ctx)
	if err != nil {
		return err
	}
	listing, err := c.store.ListPage(c.ctx, plan.ListOptions{})
	if err != nil {
		return err
	}
	if len(listing.Plans)+len(listing.Warnings) == 0 {
		if nested, ok := c.nestedPlans(); ok {
			return c.wrongDir(nested)
		}
	}
	v := &watchView{c: c, l: c.l, out: c.stdout, terminal: isTerminal(c.stdout), shown: map[string]plan.Summary{}}
	v.update(listing, nil)
	resized, stopResize := notifyResize()
	defer stopResize()
	for {
		select {
		case <-c.ctx.Done():
			return nil
		case <-resized:
			v.update(v.last, v.failure)
		case change, ok := <-changes:
			if !ok {
				return nil
			}
			v.saw(change)
			drain(changes, v.saw)
			listing, err := c.store.ListPage(c.ctx, plan.ListOptions{})
			if c.ctx.Err() != nil {
				return nil
			}
			if err != nil {
				v.update(v.last, err)
				continue
			}
			v.update(listing, nil)
		}
	}
}

// drain takes every change already waiting, passing each to saw: one listing answers them
// all.
func drain(changes <-chan plan.Change, saw func(plan.Change)) {
	for {
		select {
		case c, ok := <-changes:
			if !ok {
				return
			}
			saw(c)
		default:
			return
		}
	}
}

// saw notes who made the latest change of each plan, which the view shows.
func (v *watchView) saw(c plan.Change) {
	if c.Name == "" {
		return
	}
	if v.actors == nil {
		v.actors = map[string]string{}
	}
	v.actors[c.Name] = c.Actor
}

// watchView draws the plans for people.
type watchView struct {
	c        *cli
	l        lang
	out      io.Writer
	terminal bool
	last     *plan.Listing
	failure  error
	shown    map[string]plan.Summary // plain lines: the state last printed per plan
	actors   map[string]string       // per plan, who made the latest change seen
}

// update shows listing: on a terminal by redrawing the screen, otherwise by printing a line
// for each plan that changed since the last call. failure, when set, is a listing that
// failed, the view keeping the last one that did not.
func (v *watchView) update(listing *plan.Listing, failure error) {
	v.last, v.failure = listing, failure
	now := time.Now().Format("15:04:05")
	if v.terminal {
		v.redraw(now)
		return
	}
	if failure != nil {
		fmt.Fprint(v.out, v.l.t("watch.failed", now, failure))
		return
	}
	if len(v.shown) == 0 && len(listing.Plans) == 0 {
		fmt.Fprint(v.out, v.l.t("watch.none", now, v.c.loc.shown))
	}
	present := make(map[string]bool, len(listing.Plans))
	for _, p := range listing.Plans {
		present[p.Name] = true
		if old, ok := v.shown[p.Name]; ok && sameView(old, p) {
			continue
		}
		v.shown[p.Name] = p
		r := v.l.row(p, v.actors[p.Name])
		fmt.Fprint(v.out, v.l.t("watch.line", now, r[0], r[1], r[2], r[3], r[4], r[5]))
	}
	for name, old := range v.shown {
		if !present[name] {
			delete(v.shown, name)
			fmt.Fprint(v.out, v.l.t("watch.removed", now, name, old.Revision))
		}
	}
}

func sameView(a, b plan.Summary) bool {
	return a.Revision == b.Revision && a.Title == b.Title && a.Status == b.Status && a.Author == b.Author && a.Progress == b.Progress
}

// clearScreen moves the cursor home and clears the terminal.
const clearScreen = "\x1b[H\x1b[2J"

// redraw draws the whole view, each line clipped to the terminal's width.
func (v *watchView) redraw(now string) {
	var buf bytes.Buffer
	buf.WriteString(v.l.t("watch.title", v.c.loc.shown, v.l.plansCount(len(v.last.Plans)), now))
	if len(v.last.Plans) == 0 {
		buf.WriteString(v.l.t("watch.empty"))
	} else {
		tw := newColumns(&buf)
		fmt.Fprint(tw, v.l.t("watch.header"))
		for _, p := range v.last.Plans {
			fmt.Fprintln(tw, strings.Join(v.l.row(p, v.actors[p.Name]), "\t"))
		}
		tw.Flush()
	}
	for _, w := range v.last.Warnings {
		buf.WriteString(v.l.t("watch.unreadable", w.Name, w.Code))
	}
	if v.failure != nil {
		buf.WriteString(v.l.t("watch.failed_at", now, v.failure))
	}
	width := termWidth(v.out)
	var screen strings.Builder
	screen.WriteString(clearScreen)
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if width > 0 {
			line = clipColumns(line, width)
		}
		screen.WriteString(line)
		screen.WriteByte('\n')
	}
	io.WriteString(v.out, screen.String())
}

// row is what the view shows of a plan: name, progress bar, status, revision, current step
// and who made the latest change (actor, when a change was seen; else the plan's author).
func (l lang) row(p plan.Summary, actor string) []string {
	bar := l.t("watch.no_steps")
	if p.Progress.Total > 0 {
		bar = fmt.Sprintf("%s %3d%%", progressText(p.Progress), p.Progress.Percent)
	}
	bar += l.overBudgetMark(p)
	step := "-"
	switch {
	case p.CurrentStep != nil && p.CurrentStep.State == plan.StepInProgress:
		step = l.t("watch.doing", p.CurrentStep.Number, clip(oneLine(p.CurrentStep.Text), 40))
	case p.CurrentStep != nil:
		step = l.t("watch.next", p.CurrentStep.Number, clip(oneLine(p.CurrentStep.Text), 40))
	case p.Progress.Total > 0:
		step = l.t("watch.all_over")
	}
	by := oneLine(actor)
	if by == "" {
		by = oneLine(p.Author)
	}
	if by == "" {
		by = "-"
	}
	return []string{p.Name, bar, clip(oneLine(p.Status), 20), fmt.Sprint(p.Revision), step, clip(by, 24)}
}
