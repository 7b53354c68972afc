// Command planctl lets people follow and change the plans that agents keep with
// github.com/einoplan/plan, from a terminal or a script, on a local folder or on Redis,
// with the same revision checks and locks the agents use.
//
//	go install github.com/einoplan/plan/cmd/planctl@latest   # once versions are published
//	go install ./cmd/planctl                                 # until then, in a clone
//
// Usage:
//
//	planctl [-dir DIR | -redis URL | -postgres URL] list [-json] [-limit N] [-after NAME] [-status S]
//	planctl [-dir DIR | -redis URL | -postgres URL] show NAME [-json]
//	planctl [-dir DIR | -redis URL | -postgres URL] watch          a live view, redrawn on every change
//	planctl [-dir DIR | -redis URL | -postgres URL] log NAME [-json]   the kept revisions, newest first
//	planctl [-dir DIR | -redis URL | -postgres URL] diff NAME [FROM [TO]]  what changed between two kept revisions
//	planctl [-dir DIR | -redis URL | -postgres URL] approve NAME -rev N [-by WHO]  approve exactly revision N
//	planctl [-dir DIR | -redis URL | -postgres URL] reject NAME -rev N -feedback TEXT [-by WHO]  turn down revision N, saying why
//	planctl [-dir DIR | -redis URL | -postgres URL] comment NAME STEP TEXT [-by WHO]  comment on a step (0: the plan) for the agents to answer
//	planctl [-dir DIR | -redis URL | -postgres URL] resolve NAME ID [-by WHO]  close a comment
//	planctl [-dir DIR | -redis URL | -postgres URL] revoke NAME
//	planctl [-dir DIR | -redis URL | -postgres URL] take NAME STEP [-to WHO]  hand a step to WHO, or release it
//	planctl [-dir DIR | -redis URL | -postgres URL] complete NAME STEP [-by WHO] [-rev N]  complete a step (a review)
//	planctl [-dir DIR | -redis URL | -postgres URL] budget NAME [STEP] BUDGET [-rev N]  set what the plan, or a step, may cost
//	planctl [-dir DIR | -redis URL | -postgres URL] status NAME STATUS [-rev N]
//	planctl [-dir DIR | -redis URL | -postgres URL] export NAME FILE   the body, ready to edit ("-": standard output)
//	planctl [-dir DIR | -redis URL | -postgres URL] import NAME FILE [-rev N]  create or replace the body ("-": standard input)
//	planctl [-dir DIR | -redis URL | -postgres URL] import-plantask NAME TASKDIR [-rev N]  a plan from Eino plantask's tasks
//	planctl [-dir DIR | -redis URL | -postgres URL] rm NAME [-rev N]
//	planctl [-dir DIR | -redis URL | -postgres URL] check [-json]   after an upgrade: what is left to do
//	planctl [-dir DIR | -redis URL | -postgres URL] migrate [NAME] [-json]  convert what an earlier release stored
//	planctl [-dir DIR | -redis URL | -postgres URL] serve [-addr HOST:PORT]  the plan board at the URL it prints (with this run's secret), acting as $USER
//	planctl [-dir DIR | -redis URL | -postgres URL] mcp [-as NAME] [-approval] [-ask-client]  the plan tools over MCP
//	planctl [-dir DIR | -redis URL | -postgres URL] watch -acp SESSION  ACP plan updates, one JSON-RPC notification a line
//
// DIR is the folder holding the plan files, NAME.md each; it defaults to $PLAN_DIR, or
// ./.plans when that is unset. A program that keeps plans with plan.NewLocalBackend(ROOT)
// and the default BaseDir ("/plans") keeps them in ROOT/plans, so use -dir ROOT/plans;
// given ROOT, planctl says so. planctl opens DIR as such a program does (its parent, with
// BaseDir "/<DIR's name>"), so both find the approval key beside DIR. The default ./.plans
// sits in a project, so planctl keeps its key in the user's config folder instead
// (planctl/keys/HASH/approval-key under $XDG_CONFIG_HOME, else ~/.config, on Linux;
// keys.go) and writes a .gitignore into the folder when
// it makes it. On Unix-like systems planctl takes the same folder lock as
// those programs, so it never interleaves a change with theirs.
//
// -redis URL (default $PLAN_REDIS) works on the plans an agent keeps with the Redis
// backend: redis://[user:password@]host:port/db, rediss:// for TLS. There -dir is the
// plans folder inside Redis (default /plans) and -prefix the backend's key prefix.
//
// -rev N makes a change conditional: it happens only if the plan is still at revision N,
// as shown by list or show (for import, -rev 0 means create only). approve needs it: a
// person approves the revision they reviewed, and the approval is refused if the plan moved
// on. Flags may stand before or after the command, with one dash or two.
//
// planctl speaks English or Chinese to people (messages_en.go, messages_zh.go): -lang en|zh
// decides, else the first of LC_ALL, LC_MESSAGES and LANG that is set (Chinese when it starts
// with "zh"), else English. JSON output, exit statuses and error codes are the same in both.
//
// Exit status: 0 done; 1 failed; 2 usage error; 3 revision conflict, the plan is no longer
// at revision N and nothing was changed; 4 no such plan, or no such kept revision; 5 check
// found something to do. Errors go
// to standard error as "planctl: CODE: what happened and what to do", CODE being the plan
// error code (revision_conflict, not_found, corrupt, ...). list reports plan files it
// cannot read as warnings on standard error and lists the others.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan"
)

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
		return errNotRevision
	}
	*r.v = &n
	return nil
}

// errNotRevision is revFlag's refusal, which flagError says in the person's language.
var errNotRevision = errors.New("-rev")

// The errors of package flag that flagError says in the person's language: the flag
// package writes them in English.
const (
	flagUndefined = "flag provided but not defined: "
	flagNoValue   = "flag needs an argument: "
	flagBadValue  = "invalid value "
)

// flagError says a flag parsing error of fs.Parse in c's language: an unknown flag, a flag
// without its value, a value that is not one; other errors as package flag words them.
func (c *cli) flagError(err error) string {
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, flagUndefined); ok {
		return c.t("main.flag_undefined", f)
	}
	if f, ok := strings.CutPrefix(msg, flagNoValue); ok {
		return c.t("main.flag_no_value", f)
	}
	// invalid value "x" for flag -rev: reason
	if rest, ok := strings.CutPrefix(msg, flagBadValue); ok {
		if value, err := strconv.QuotedPrefix(rest); err == nil {
			name, _, _ := strings.Cut(strings.TrimPrefix(rest[len(value):], " for flag "), ":")
			if name == "-rev" {
				return c.t("main.flag_rev", value)
			}
			return c.t("main.flag_value", value, name)
		}
	}
	return msg
}

// parse reads flags wherever they stand among the arguments and returns the rest.
func (c *cli) parse(args []string) ([]string, error) {
	fs := flag.NewFlagSet("planctl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.dir, "dir", "", "")
	fs.StringVar(&c.redisURL, "redis", "", "")
	fs.StringVar(&c.postgres, "postgres", "", "")
	fs.StringVar(&c.prefix, "prefix", "", "")
	fs.Var(revFlag{&c.rev}, "rev", "")
	fs.BoolVar(&c.jsonOut, "json", false, "")
	fs.IntVar(&c.page.Limit, "limit", 0, "")
	fs.StringVar(&c.page.Cursor, "after", "", "")
	fs.StringVar(&c.page.Status, "status", "", "")
	fs.StringVar(&c.by, "by", "", "")
	fs.StringVar(&c.feedback, "feedback", "", "")
	fs.StringVar(&c.to, "to", "", "")
	fs.StringVar(&c.addr, "addr", "", "")
	c.mcpFlags.register(fs) // mcp, and watch -acp
	fs.BoolVar(&c.adoptKey, "adopt-key", false, "")
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			c.set = map[string]bool{}
			fs.Visit(func(f *flag.Flag) { c.set[f.Name] = true })
			return rest, nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

var commands = map[string]command{
	"list":     {flags: []string{"json", "limit", "after", "status"}, readOnly: true, run: (*cli).list},
	"show":     {args: []string{"NAME"}, flags: []string{"json"}, readOnly: true, run: (*cli).show},
	"watch":    {flags: []string{"acp"}, readOnly: true, run: (*cli).watch},
	"log":      {args: []string{"NAME"}, flags: []string{"json"}, readOnly: true, run: (*cli).log},
	"diff":     {args: []string{"NAME", "FROM", "TO"}, optional: 2, readOnly: true, run: (*cli).diff},
	"approve":  {args: []string{"NAME"}, flags: []string{"rev", "by"}, run: (*cli).approve},
	"reject":   {args: []string{"NAME"}, flags: []string{"rev", "by", "feedback"}, run: (*cli).reject},
	"comment":  {args: []string{"NAME", "STEP", "TEXT"}, flags: []string{"rev", "by"}, run: (*cli).comment},
	"resolve":  {args: []string{"NAME", "ID"}, flags: []string{"rev", "by"}, run: (*cli).resolve},
	"revoke":   {args: []string{"NAME"}, run: (*cli).revoke},
	"take":     {args: []string{"NAME", "STEP"}, flags: []string{"to"}, run: (*cli).take},
	"complete": {args: []string{"NAME", "STEP"}, flags: []string{"rev", "by"}, run: (*cli).complete},
	"budget":   {args: []string{"NAME", "STEP", "BUDGET"}, optional: 1, synopsis: "NAME [STEP] BUDGET", flags: []string{"rev"}, run: (*cli).budget},
	"status":   {args: []string{"NAME", "STATUS"}, flags: []string{"rev"}, run: (*cli).setStatus},
	"export":   {args: []string{"NAME", "FILE"}, readOnly: true, run: (*cli).export},
	"import":   {args: []string{"NAME", "FILE"}, flags: []string{"rev"}, run: (*cli).importFile},
	"rm":       {args: []string{"NAME"}, flags: []string{"rev"}, run: (*cli).remove},
	"serve":    {flags: []string{"addr"}, run: (*cli).serve},
	"mcp":      {flags: []string{"as", "approval", "ask-client"}, run: (*cli).mcp},
}

// commandFlags are the flags that only some commands accept, in the order usage errors
// name them.
var commandFlags = []string{"json", "rev", "by", "feedback", "to", "addr", "limit", "after", "status", "as", "approval", "ask-client", "acp", "adopt-key"}

// flagMisuse names a command flag given to a command that does not accept it, and the
// commands that do; "" when every flag given applies.
func (l lang) flagMisuse(name string, cmd command, set map[string]bool) string {
	for _, f := range commandFlags {
		if !set[f] || slices.Contains(cmd.flags, f) {
			continue
		}
		var users []string
		for n, other := range commands {
			if slices.Contains(other.flags, f) {
				users = append(users, n)
			}
		}
		slices.Sort(users)
		list := users[len(users)-1]
		if len(users) > 1 {
			list = l.t("main.and", strings.Join(users[:len(users)-1], ", "), list)
		}
		return l.t("main.flag_misuse", f, list, name)
	}
	return ""
}

func (c *cli) run(args []string) int {
	// The history names the person at the terminal as who made each change, so their
	// changes fence the agents.
	c.ctx = plan.WithActor(c.ctx, terminalPerson())
	rest, err := c.parse(args)
	c.l = localeLang()
	if l, ok := parseLang(c.mcpFlags.lang); ok {
		c.l = l
	} else if err == nil && c.mcpFlags.lang != "" {
		return c.usageError(c.t("main.lang", c.mcpFlags.lang))
	}
	if errors.Is(err, flag.ErrHelp) || (err == nil && len(rest) > 0 && rest[0] == "help") {
		c.say("usage")
		return exitOK
	}
	if err != nil {
		return c.usageError(c.flagError(err))
	}
	if len(rest) == 0 {
		return c.usageError(c.t("main.no_command"))
	}
	name, rest := rest[0], rest[1:]
	cmd, ok := commands[name]
	if c.redisURL == "" {
		c.redisURL = os.Getenv("PLAN_REDIS")
	}
	switch {
	case !ok:
		return c.usageError(c.t("main.unknown_command", strconv.Quote(name)))
	case len(rest) > len(cmd.args) || len(rest) < len(cmd.args)-cmd.optional:
		return c.usageError(c.t("main.arg_count", name, c.l.argCount(cmd), synopsis(name, cmd)))
	case c.l.flagMisuse(name, cmd, c.set) != "":
		return c.usageError(c.l.flagMisuse(name, cmd, c.set))
	case c.page.Limit < 0:
		return c.usageError(c.t("main.limit"))
	case c.prefix != "" && c.redisURL == "":
		return c.usageError(c.t("main.prefix"))
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

// argCount says how many arguments cmd takes.
func (l lang) argCount(cmd command) string {
	n := len(cmd.args)
	switch {
	case cmd.optional > 0:
		return l.t("main.args_range", n-cmd.optional, n)
	case n == 1:
		return l.t("main.args_one")
	}
	return l.t("main.args_n", n)
}

// synopsis is the command line of cmd, its optional arguments in brackets.
func synopsis(name string, cmd command) string {
	if cmd.synopsis != "" {
		return name + " " + cmd.synopsis
	}
	out := name
	required := len(cmd.args) - cmd.optional
	for i, a := range cmd.args {
		if i >= required {
			out += " [" + a
		} else {
			out += " " + a
		}
	}
	return out + strings.Repeat("]", cmd.optional)
}

func (c *cli) usageError(msg string) int {
	c.sayErr("main.usage_error", msg, c.t("usage"))
	return exitUsage
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
		c.say("list.none", c.loc.shown)
		return nil
	}
	upgraded := c.upgradeLeftovers(listing)
	tw := newColumns(c.stdout)
	fmt.Fprint(tw, c.t("list.header"))
	for _, p := range listing.Plans {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", p.Name, clip(oneLine(p.Title), 40), clip(oneLine(p.Status), 20),
			progressText(p.Progress)+c.l.overBudgetMark(p), p.Revision, c.l.approvalCell(p.Approval, p.Waiting)+upgraded[p.Name], p.UpdatedAt.Local().Format("2006-01-02 15:04"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(upgraded) > 0 {
		c.say("list.upgrade", c.l.plansCount(len(upgraded)))
	}
	if listing.NextCursor != "" {
		c.say("list.page", len(listing.Plans), listing.Total, listing.NextCursor, c.page.Limit)
	}
	return nil
}

// showJSON is what show -json prints: the plan under the JSON names api.Plan documents (its
// fields without one, the header's bookkeeping, left out), and what its body says.
func showJSON(p *plan.Plan, sum plan.Summary, steps []plan.Step) (map[string]any, error) {
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // revisions stay exact
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	t := reflect.TypeOf(*p)
	for i := range t.NumField() {
		if _, named := t.Field(i).Tag.Lookup("json"); !named {
			delete(out, t.Field(i).Name)
		}
	}
	out["progress"], out["steps"] = sum.Progress, steps
	if sum.CurrentStep != nil {
		out["current_step"] = sum.CurrentStep
	}
	return out, nil
}

func (c *cli) show(args []string) error {
	p, err := c.store.Get(c.ctx, args[0])
	if err != nil {
		return err
	}
	sum := plan.Summarize(p)
	steps := plan.ParseSteps(p.Content)
	if c.jsonOut {
		if steps == nil {
			steps = []plan.Step{}
		}
		out, err := showJSON(p, sum, steps)
		if err != nil {
			return err
		}
		return c.writeJSON(out)
	}
	c.say("show.title", p.Name, oneLine(p.Title))
	c.say("show.status", oneLine(p.Status))
	c.say("show.revision", p.Revision)
	if p.Approval != nil {
		c.say("show.approval", c.l.approvalText(p.Approval))
	}
	if p.Waiting != nil {
		c.say("show.asked", c.l.waitingRunText(p.Waiting))
	}
	if p.Rejection != nil {
		c.say("show.rejected", c.l.rejectionText(p.Rejection))
	}
	c.printComments(p)
	if p.Author != "" {
		c.say("show.author", oneLine(p.Author))
	}
	c.say("show.updated", p.UpdatedAt.Local().Format(time.DateTime+" MST"))
	if sum.Progress.Total > 0 {
		progress := c.t("show.progress", progressText(sum.Progress), sum.Progress.Percent)
		if next := nextStep(sum); next != nil {
			progress = c.t("show.progress_next", progress, next.Number, oneLine(next.Text))
		}
		c.say("show.line", progress)
	}
	for _, line := range []struct{ key, text string }{
		{"show.held", c.l.holdersText(steps)},
		{"show.waiting", c.l.waitingText(steps)},
		{"show.uses", c.l.usesText(steps)},
		{"show.proof", c.l.proofText(steps)},
		{"show.review", c.l.reviewText(steps)},
		{"show.budget", oneLine(p.Budget)},
		{"show.cost", c.l.costText(steps)},
	} {
		if line.text != "" {
			c.say(line.key, line.text)
		}
	}
	if over := c.l.overBudgetText(p, steps); over != "" {
		c.say("show.over", over, p.Name)
	}
	fmt.Fprintln(c.stdout)
	_, err = io.WriteString(c.stdout, renderBody(p.Content, steps, c.color))
	return err
}

// waitingText lists the pending steps that wait for steps not yet completed or skipped
// ("step 5 for 2, 3"), as the Store judges them: such a step cannot be started.
func (l lang) waitingText(steps []plan.Step) string {
	var parts []string
	for _, s := range steps {
		if s.State != plan.StepPending {
			continue
		}
		var waits []string
		for _, n := range s.After {
			if n >= 1 && n <= len(steps) && (n == s.Number || steps[n-1].State != plan.StepCompleted && steps[n-1].State != plan.StepSkipped) {
				waits = append(waits, strconv.Itoa(n))
			}
		}
		if waits != nil {
			parts = append(parts, l.t("show.waits_for", s.Number, strings.Join(waits, ", ")))
		}
	}
	return strings.Join(parts, l.t("sep"))
}

// nextStep is the step an agent looking for work takes: the first ready pending one.
func nextStep(sum plan.Summary) *plan.Step {
	if sum.NextStep != nil {
		return sum.NextStep
	}
	if sum.CurrentStep != nil && sum.CurrentStep.State == plan.StepPending {
		return sum.CurrentStep
	}
	return nil
}

// terminalPerson is who runs planctl: $USER, else (a container, cron) "planctl", the author
// it gives the plans it creates. Never "": a change that names nobody is not a person's.
func terminalPerson() string {
	if who := strings.TrimSpace(os.Getenv("USER")); who != "" {
		return who
	}
	return "planctl"
}
