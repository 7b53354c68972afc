// Command planctl lets people follow and change the plans that agents keep with
// github.com/einoplan/plan, from a terminal or a script, on a local folder or on Redis,
// with the same revision checks and locks the agents use.
//
//	go install github.com/einoplan/plan/cmd/planctl@latest
//
// Usage:
//
//	planctl [-dir DIR | -redis URL] list [-json] [-limit N] [-after NAME] [-status S]
//	planctl [-dir DIR | -redis URL] show NAME [-json]
//	planctl [-dir DIR | -redis URL] watch          a live view, redrawn on every change
//	planctl [-dir DIR | -redis URL] status NAME STATUS [-rev N]
//	planctl [-dir DIR | -redis URL] export NAME FILE   the body, ready to edit ("-": standard output)
//	planctl [-dir DIR | -redis URL] import NAME FILE [-rev N]  create or replace the body ("-": standard input)
//	planctl [-dir DIR | -redis URL] rm NAME [-rev N]
//
// DIR is the folder holding the plan files, NAME.md each; it defaults to $PLAN_DIR, or
// ./.plans when that is unset. A program that keeps plans with plan.NewLocalBackend(ROOT)
// and the default BaseDir ("/plans") keeps them in ROOT/plans, so use -dir ROOT/plans;
// given ROOT, planctl says so. On Unix-like systems planctl takes the same folder lock as
// those programs, so it never interleaves a change with theirs.
//
// -redis URL (default $PLAN_REDIS) works on the plans an agent keeps with the Redis
// backend: redis://[user:password@]host:port/db, rediss:// for TLS. There -dir is the
// plans folder inside Redis (default /plans) and -prefix the backend's key prefix.
//
// -rev N makes a change conditional: it happens only if the plan is still at revision N,
// as shown by list or show (for import, -rev 0 means create only). Flags may stand before or
// after the command, with one dash or two.
//
// Exit status: 0 done; 1 failed; 2 usage error; 3 revision conflict, the plan is no longer
// at revision N and nothing was changed; 4 no such plan. Errors go to standard error as
// "planctl: CODE: what happened and what to do", CODE being the plan error code
// (revision_conflict, not_found, corrupt, ...). list reports plan files it cannot read as
// warnings on standard error and lists the others.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

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

const usage = `Usage: planctl [-dir DIR | -redis URL] COMMAND [ARGS]

Commands:
  list                    list plans: name, title, status, progress, revision, last update
  show NAME               print a plan's header and body
  watch                   a live view of every plan, redrawn on every change (Ctrl-C quits)
  status NAME STATUS      set a plan's status
  export NAME FILE        write a plan's body to FILE ("-" for standard output)
  import NAME FILE        create a plan, or replace its body, from FILE ("-" for standard input)
  rm NAME                 delete a plan

Flags, before or after the command:
  -dir DIR     folder of plan files (default $PLAN_DIR, else ./.plans);
               with -redis, the plans folder inside Redis (default /plans)
  -redis URL   plans kept in Redis, e.g. redis://localhost:6379/0 (default $PLAN_REDIS)
  -prefix P    key prefix of the Redis backend (default its own)
  -rev N       change the plan only if it is still at revision N (status, import, rm);
               with import, -rev 0 only creates
  -json        print JSON (list, show)
  -limit N     list at most N plans, then say how to see the next page (list)
  -after NAME  list the plans after NAME, as that hint says (list)
  -status S    list only plans whose status is exactly S (list)

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

	dir      string // -dir as given, or its default
	redisURL string
	prefix   string
	rev      *int64
	jsonOut  bool
	page     plan.ListOptions // -limit, -after, -status
	color    bool
	store    *plan.Store
	loc      location
	command  string
	args     []string
	created  bool // the last change created its plan
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
	fs.StringVar(&c.redisURL, "redis", "", "")
	fs.StringVar(&c.prefix, "prefix", "", "")
	fs.Var(revFlag{&c.rev}, "rev", "")
	fs.BoolVar(&c.jsonOut, "json", false, "")
	fs.IntVar(&c.page.Limit, "limit", 0, "")
	fs.StringVar(&c.page.Cursor, "after", "", "")
	fs.StringVar(&c.page.Status, "status", "", "")
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
	"watch":  {nil, false, false, true, (*cli).watch},
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
	if c.redisURL == "" {
		c.redisURL = os.Getenv("PLAN_REDIS")
	}
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
	case c.page != (plan.ListOptions{}) && name != "list":
		return c.usageError("-limit, -after and -status apply to list only")
	case c.page.Limit < 0:
		return c.usageError("-limit must be a positive number")
	case c.prefix != "" && c.redisURL == "":
		return c.usageError("-prefix applies with -redis only")
	}
	c.command, c.args = name, rest
	if err := c.checkArgs(); err != nil {
		return c.fail(err)
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

func (c *cli) usageError(msg string) int {
	fmt.Fprintf(c.stderr, "planctl: %s\n\n%s", msg, usage)
	return exitUsage
}

func (c *cli) writeJSON(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (c *cli) list([]string) error {
	listing, err := c.store.ListPage(c.ctx, c.page)
	if err != nil {
		return err
	}
	if len(listing.Plans)+len(listing.Warnings) == 0 {
		if nested, ok := c.nestedPlans(); ok {
			return c.wrongDir(nested)
		}
	}
	for _, w := range listing.Warnings {
		c.warn(w)
	}
	if c.jsonOut {
		return c.writeJSON(listing)
	}
	if len(listing.Plans) == 0 {
		fmt.Fprintf(c.stdout, "No plans in %s\n", c.loc.shown)
		return nil
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTITLE\tSTATUS\tPROGRESS\tREV\tUPDATED")
	for _, p := range listing.Plans {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", p.Name, clip(oneLine(p.Title), 40), clip(oneLine(p.Status), 20),
			progressText(p.Progress), p.Revision, p.UpdatedAt.Local().Format("2006-01-02 15:04"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if listing.NextCursor != "" {
		fmt.Fprintf(c.stdout, "%d of %d plans shown; next page: planctl list -after %s -limit %d\n",
			len(listing.Plans), listing.Total, listing.NextCursor, c.page.Limit)
	}
	return nil
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
	content, err := c.readInput(args[1])
	if err != nil {
		return err
	}
	if strings.TrimSpace(content) == "" {
		return &cliError{code: plan.CodeInvalidArgument, exit: exitFailed,
			msg: fmt.Sprintf("%s is empty; a plan needs a body, with its steps as a checklist (- [ ] step)", args[1])}
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
