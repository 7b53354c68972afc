package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
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
	v := &watchView{c: c, out: c.stdout, terminal: isTerminal(c.stdout), shown: map[string]plan.Summary{}}
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
		fmt.Fprintf(v.out, "%s the plan storage failed: %v; retrying on the next change\n", now, failure)
		return
	}
	if len(v.shown) == 0 && len(listing.Plans) == 0 {
		fmt.Fprintf(v.out, "%s no plans in %s yet; waiting for changes\n", now, v.c.loc.shown)
	}
	present := make(map[string]bool, len(listing.Plans))
	for _, p := range listing.Plans {
		present[p.Name] = true
		if old, ok := v.shown[p.Name]; ok && sameView(old, p) {
			continue
		}
		v.shown[p.Name] = p
		r := row(p, v.actors[p.Name])
		fmt.Fprintf(v.out, "%s %s: %s, %s, revision %s, %s, by %s\n", now, r[0], r[1], r[2], r[3], r[4], r[5])
	}
	for name, old := range v.shown {
		if !present[name] {
			delete(v.shown, name)
			fmt.Fprintf(v.out, "%s %s: removed at revision %d\n", now, name, old.Revision)
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
	count := fmt.Sprintf("%d plans", len(v.last.Plans))
	if len(v.last.Plans) == 1 {
		count = "1 plan"
	}
	fmt.Fprintf(&buf, "planctl watch  %s  %s  at %s  (Ctrl-C quits)\n\n", v.c.loc.shown, count, now)
	if len(v.last.Plans) == 0 {
		fmt.Fprintf(&buf, "No plans yet; waiting for changes.\n")
	} else {
		tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tPROGRESS\tSTATUS\tREV\tCURRENT STEP\tLAST CHANGE BY")
		for _, p := range v.last.Plans {
			fmt.Fprintln(tw, strings.Join(row(p, v.actors[p.Name]), "\t"))
		}
		tw.Flush()
	}
	for _, w := range v.last.Warnings {
		fmt.Fprintf(&buf, "! %s cannot be read (%s)\n", w.Name, w.Code)
	}
	if v.failure != nil {
		fmt.Fprintf(&buf, "! the plan storage failed at %s: %v\n", now, v.failure)
	}
	width := termWidth(v.out)
	var screen strings.Builder
	screen.WriteString(clearScreen)
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if width > 0 {
			line = clip(line, width)
		}
		screen.WriteString(line)
		screen.WriteByte('\n')
	}
	io.WriteString(v.out, screen.String())
}

// row is what the view shows of a plan: name, progress bar, status, revision, current step
// and who made the latest change (actor, when a change was seen; else the plan's author).
func row(p plan.Summary, actor string) []string {
	bar := "no steps"
	if p.Progress.Total > 0 {
		bar = fmt.Sprintf("%s %3d%%", progressText(p.Progress), p.Progress.Percent)
	}
	bar += overBudgetMark(p)
	step := "-"
	switch {
	case p.CurrentStep != nil && p.CurrentStep.State == plan.StepInProgress:
		step = fmt.Sprintf("doing %d: %s", p.CurrentStep.Number, clip(oneLine(p.CurrentStep.Text), 40))
	case p.CurrentStep != nil:
		step = fmt.Sprintf("next %d: %s", p.CurrentStep.Number, clip(oneLine(p.CurrentStep.Text), 40))
	case p.Progress.Total > 0:
		step = "all steps over"
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
