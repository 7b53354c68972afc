// Command planctl lets people read and change the plans that agents keep with
// github.com/einoplan/plan, from a terminal or a script, with the same revision checks and
// locks the agents use.
//
//	go install github.com/einoplan/plan/cmd/planctl@latest
//
// Usage:
//
//	planctl [-dir DIR] list [-json]          name, title, status, progress, revision, last update
//	planctl [-dir DIR] show NAME [-json]     header and body; steps coloured by state on a terminal
//	planctl [-dir DIR] status NAME STATUS [-rev N]
//	planctl [-dir DIR] export NAME FILE      the body, ready to edit ("-" for standard output)
//	planctl [-dir DIR] import NAME FILE [-rev N]  create or replace the body ("-" for standard input)
//	planctl [-dir DIR] rm NAME [-rev N]
//
// DIR is the folder holding the plan files, NAME.md each; it defaults to $PLAN_DIR, or
// ./.plans when that is unset. A program that keeps plans with plan.NewLocalBackend(ROOT)
// and the default BaseDir ("/plans") keeps them in ROOT/plans, so use -dir ROOT/plans.
// On Unix-like systems planctl takes the same folder lock as those programs, so it never
// interleaves a change with theirs.
//
// -rev N makes a change conditional: it happens only if the plan is still at revision N,
// as shown by list or show (for import, -rev 0 means create only). Flags may stand before or
// after the command, with one dash or two.
//
// Exit status: 0 done; 1 failed; 2 usage error; 3 revision conflict, the plan is no longer
// at revision N and nothing was changed; 4 no such plan. Errors go to standard error as
// "planctl: CODE: message", CODE being the plan error code (revision_conflict, not_found,
// corrupt, ...). list reports plan files it cannot read as warnings on standard error and
// lists the others.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/einoplan/plan"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitConflict = 3
	exitNotFound = 4
)

const usage = `Usage: planctl [-dir DIR] COMMAND [ARGS]

Commands:
  list                    list plans: name, title, status, progress, revision, last update
  show NAME               print a plan's header and body
  status NAME STATUS      set a plan's status
  export NAME FILE        write a plan's body to FILE ("-" for standard output)
  import NAME FILE        create a plan, or replace its body, from FILE ("-" for standard input)
  rm NAME                 delete a plan

Flags, before or after the command:
  -dir DIR   folder of plan files (default $PLAN_DIR, else ./.plans)
  -rev N     change the plan only if it is still at revision N (status, import, rm);
             with import, -rev 0 only creates
  -json      print JSON (list, show)

Exit status: 0 done, 1 failed, 2 usage error, 3 revision conflict (nothing changed),
4 no such plan.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := (&cli{ctx: ctx, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}).run(os.Args[1:])
	stop()
	os.Exit(code)
}

// run executes one planctl command line and returns its exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return (&cli{ctx: context.Background(), stdin: os.Stdin, stdout: stdout, stderr: stderr}).run(args)
}

type cli struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer

	dir     string
	rev     *int64
	jsonOut bool
	color   bool
	store   *plan.Store
	created bool // the last change created its plan
}

// revFlag is -rev: an optional non-negative revision.
type revFlag struct{ v **int64 }

func (r revFlag) String() string {
	if r.v == nil || *r.v == nil {
		return ""
	}
	return strconv.FormatInt(**r.v, 10)
}

func (r revFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return errors.New("must be a revision number, 0 or more")
	}
	*r.v = &n
	return nil
}

// parse reads flags wherever they stand among the arguments and returns the rest.
func (c *cli) parse(args []string) ([]string, error) {
	fs := flag.NewFlagSet("planctl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.dir, "dir", "", "")
	fs.Var(revFlag{&c.rev}, "rev", "")
	fs.BoolVar(&c.jsonOut, "json", false, "")
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return rest, nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

type command struct {
	args     []string // names of the positional arguments
	json     bool     // accepts -json
	rev      bool     // accepts -rev
	readOnly bool     // never writes, so a missing DIR is simply empty
	run      func(c *cli, args []string) error
}

var commands = map[string]command{
	"list":   {nil, true, false, true, (*cli).list},
	"show":   {[]string{"NAME"}, true, false, true, (*cli).show},
	"status": {[]string{"NAME", "STATUS"}, false, true, false, (*cli).setStatus},
	"export": {[]string{"NAME", "FILE"}, false, false, true, (*cli).export},
	"import": {[]string{"NAME", "FILE"}, false, true, false, (*cli).importFile},
	"rm":     {[]string{"NAME"}, false, true, false, (*cli).remove},
}

func (c *cli) run(args []string) int {
	rest, err := c.parse(args)
	if errors.Is(err, flag.ErrHelp) || (err == nil && len(rest) > 0 && rest[0] == "help") {
		fmt.Fprint(c.stdout, usage)
		return exitOK
	}
	if err != nil {
		return c.usageError(err.Error())
	}
	if len(rest) == 0 {
		return c.usageError("no command given")
	}
	name, rest := rest[0], rest[1:]
	cmd, ok := commands[name]
	switch {
	case !ok:
		return c.usageError(fmt.Sprintf("unknown command %q", name))
	case len(rest) != len(cmd.args):
		want := name
		for _, a := range cmd.args {
			want += " " + a
		}
		return c.usageError(fmt.Sprintf("%s takes %d argument(s): planctl %s", name, len(cmd.args), want))
	case c.jsonOut && !cmd.json:
		return c.usageError("-json applies to list and show only")
	case c.rev != nil && !cmd.rev:
		return c.usageError("-rev applies to status, import and rm only")
	}
	if c.dir == "" {
		c.dir = os.Getenv("PLAN_DIR")
	}
	if c.dir == "" {
		c.dir = ".plans"
	}
	closeStore, err := c.openStore(cmd.readOnly)
	if err != nil {
		return c.fail(err)
	}
	defer closeStore()
	c.color = isTerminal(c.stdout) && os.Getenv("NO_COLOR") == ""
	if err := cmd.run(c, rest); err != nil {
		return c.fail(err)
	}
	return exitOK
}

// openStore opens the Store on DIR, the plan files lying directly in it. Read-only commands
// do not create a missing DIR: they see no plans.
func (c *cli) openStore(readOnly bool) (func(), error) {
	var backend plan.Backend
	closeBackend := func() {}
	if _, err := os.Stat(c.dir); readOnly && errors.Is(err, fs.ErrNotExist) {
		backend = plan.NewMemoryBackend()
	} else {
		local, err := plan.NewLocalBackend(c.dir)
		if err != nil {
			return nil, err
		}
		backend, closeBackend = local, func() { local.Close() }
	}
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend, BaseDir: "/", DefaultAuthor: "planctl",
		OnChange: func(_ context.Context, ch plan.Change) { c.created = ch.Created }})
	if err != nil {
		closeBackend()
		return nil, err
	}
	c.store = store
	return closeBackend, nil
}

func (c *cli) usageError(msg string) int {
	fmt.Fprintf(c.stderr, "planctl: %s\n\n%s", msg, usage)
	return exitUsage
}

// fail prints err and returns the exit status for it.
func (c *cli) fail(err error) int {
	var pe *plan.Error
	if !errors.As(err, &pe) {
		fmt.Fprintf(c.stderr, "planctl: %v\n", err)
		return exitFailed
	}
	msg := fmt.Sprintf("planctl: %s: %s", pe.Code, pe.Message)
	if pe.Err != nil {
		msg += " (" + pe.Err.Error() + ")"
	}
	fmt.Fprintln(c.stderr, msg)
	switch pe.Code {
	case plan.CodeRevisionConflict:
		fmt.Fprintf(c.stderr, "planctl: nothing was changed; the plan is at revision %d: check it with show and retry with -rev %d\n",
			pe.CurrentRevision, pe.CurrentRevision)
		return exitConflict
	case plan.CodeNotFound:
		return exitNotFound
	case plan.CodeCorrupt:
		fmt.Fprintln(c.stderr, "planctl: rm NAME (without -rev) removes an unreadable plan file")
	}
	return exitFailed
}

func (c *cli) writeJSON(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (c *cli) list([]string) error {
	listing, err := c.store.List(c.ctx)
	if err != nil {
		return err
	}
	for _, w := range listing.Warnings {
		fmt.Fprintf(c.stderr, "planctl: warning: plan %s cannot be read: %s: %s\n", w.Name, w.Code, w.Message)
	}
	if c.jsonOut {
		return c.writeJSON(listing)
	}
	if len(listing.Plans) == 0 {
		fmt.Fprintf(c.stdout, "No plans in %s\n", c.dir)
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTITLE\tSTATUS\tPROGRESS\tREV\tUPDATED")
	for _, p := range listing.Plans {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", p.Name, clip(oneLine(p.Title), 40), clip(oneLine(p.Status), 20),
			progressText(p.Progress), p.Revision, p.UpdatedAt.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

// showJSON is what show -json prints: the stored plan and what its body says.
type showJSON struct {
	*plan.Plan
	Progress    plan.Progress `json:"progress"`
	CurrentStep *plan.Step    `json:"current_step,omitempty"`
	Steps       []plan.Step   `json:"steps"`
}

func (c *cli) show(args []string) error {
	p, err := c.store.Get(c.ctx, args[0])
	if err != nil {
		return err
	}
	sum := p.Summarize()
	steps := plan.ParseSteps(p.Content)
	if c.jsonOut {
		if steps == nil {
			steps = []plan.Step{}
		}
		return c.writeJSON(showJSON{Plan: p, Progress: sum.Progress, CurrentStep: sum.CurrentStep, Steps: steps})
	}
	fmt.Fprintf(c.stdout, "%s: %s\n", p.Name, oneLine(p.Title))
	fmt.Fprintf(c.stdout, "status:   %s\n", oneLine(p.Status))
	fmt.Fprintf(c.stdout, "revision: %d\n", p.Revision)
	if p.Author != "" {
		fmt.Fprintf(c.stdout, "author:   %s\n", oneLine(p.Author))
	}
	fmt.Fprintf(c.stdout, "updated:  %s\n", p.UpdatedAt.Local().Format(time.DateTime+" MST"))
	if sum.Progress.Total > 0 {
		fmt.Fprintf(c.stdout, "progress: %s (%d%%)", progressText(sum.Progress), sum.Progress.Percent)
		if sum.CurrentStep != nil {
			fmt.Fprintf(c.stdout, ", next: step %d, %s", sum.CurrentStep.Number, oneLine(sum.CurrentStep.Text))
		}
		fmt.Fprintln(c.stdout)
	}
	fmt.Fprintln(c.stdout)
	_, err = io.WriteString(c.stdout, renderBody(p.Content, steps, c.color))
	return err
}

func (c *cli) setStatus(args []string) error {
	p, err := c.store.SetStatus(c.ctx, args[0], args[1], c.rev)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s: status %s, revision %d\n", p.Name, oneLine(p.Status), p.Revision)
	return nil
}

func (c *cli) export(args []string) error {
	p, err := c.store.Get(c.ctx, args[0])
	if err != nil {
		return err
	}
	if args[1] == "-" {
		_, err := io.WriteString(c.stdout, p.Content)
		return err
	}
	if err := os.WriteFile(args[1], []byte(p.Content), 0o666); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s: revision %d written to %s (%d bytes); import it with -rev %d to keep changes made meanwhile\n",
		p.Name, p.Revision, args[1], len(p.Content), p.Revision)
	return nil
}

func (c *cli) importFile(args []string) error {
	if err := plan.ValidateName(args[0]); err != nil {
		return err
	}
	content, err := c.readInput(args[1])
	if err != nil {
		return err
	}
	p, err := c.store.Put(c.ctx, plan.Update{Name: args[0], Content: &content, IfRevision: c.rev})
	if err != nil {
		return err
	}
	verb := "updated"
	if c.created {
		verb = "created"
	}
	fmt.Fprintf(c.stdout, "%s: %s from %s, revision %d, %s\n", p.Name, verb, args[1], p.Revision,
		progressText(p.Summarize().Progress))
	return nil
}

// readInput reads FILE, or standard input for "-", refusing more than a plan may hold
// without reading it all.
func (c *cli) readInput(name string) (string, error) {
	r := c.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r = f
	}
	limit := int64(c.store.MaxContentBytes())
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return "", err
	}
	if int64(len(b)) > limit {
		return "", fmt.Errorf("%s is larger than the %d-byte plan limit", name, limit)
	}
	return string(b), nil
}

func (c *cli) remove(args []string) error {
	rev, err := c.store.Delete(c.ctx, args[0], c.rev)
	if err != nil {
		return err
	}
	if rev > 0 {
		fmt.Fprintf(c.stdout, "%s: removed at revision %d\n", args[0], rev)
	} else {
		fmt.Fprintf(c.stdout, "%s: removed\n", args[0])
	}
	return nil
}

// progressText draws "[####------] 2/5", counting completed and skipped steps as done, or
// "-" for a plan without steps.
func progressText(p plan.Progress) string {
	if p.Total == 0 {
		return "-"
	}
	const width = 10
	done := p.Completed + p.Skipped
	filled := done * width / p.Total
	return fmt.Sprintf("[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat("-", width-filled), done, p.Total)
}

// ANSI colours of the step states.
var stateColors = map[plan.StepState]string{
	plan.StepCompleted:  "\x1b[32m", // green
	plan.StepInProgress: "\x1b[33m", // yellow
	plan.StepFailed:     "\x1b[31m", // red
	plan.StepSkipped:    "\x1b[90m", // grey
}

const colorReset = "\x1b[0m"

// renderBody returns body ready for a terminal: control characters that could move the
// cursor or change colours are shown as '?', and with color each step line is coloured by
// its state.
func renderBody(body string, steps []plan.Step, color bool) string {
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		lines[i] = printable(strings.TrimSuffix(line, "\r"), '?')
	}
	if color {
		for _, s := range steps {
			if code, ok := stateColors[s.State]; ok && s.Line >= 0 && s.Line < len(lines) {
				lines[s.Line] = code + lines[s.Line] + colorReset
			}
		}
	}
	return strings.Join(lines, "\n")
}

// printable replaces control characters other than tab by repl.
func printable(s string, repl rune) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r != '\t' && unicode.IsControl(r) }) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r != '\t' && unicode.IsControl(r) {
			return repl
		}
		return r
	}, s)
}

// oneLine makes a header field safe for one line of a terminal.
func oneLine(s string) string {
	return printable(strings.ReplaceAll(s, "\t", " "), ' ')
}

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
