// Command quickstart runs a real Eino ChatModelAgent with the plan middleware, driven by a
// scripted model, so it needs no network and no API key. It creates a plan, sets its
// status, loses a race against a teammate, recovers, and reads the plan back.
//
//	go run ./examples/quickstart            # plans in memory
//	go run ./examples/quickstart -dir DIR   # plans as Markdown files in DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/examples/internal/eventlog"
	"github.com/einoplan/plan/plantest"
)

func main() {
	dir := flag.String("dir", "", "keep plans as files in this folder (default: in memory)")
	flag.Parse()
	backend, err := openBackend(*dir)
	if err == nil {
		err = run(context.Background(), os.Stdout, backend)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func openBackend(dir string) (plan.Backend, error) {
	if dir == "" {
		return plan.NewMemoryBackend(), nil
	}
	return plan.NewLocalBackend(dir)
}

const releasePlan = `# Release 2.0
- [ ] Write the changelog
- [ ] Run the preflight checks
- [ ] Tag and publish
`

func run(ctx context.Context, w io.Writer, backend plan.Backend) error {
	// A host program (a UI, a CLI, a teammate's process) shares the same plans and locks.
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	if err != nil {
		return err
	}
	// The teammate's edits run on the agent's goroutine, between two model turns: they write
	// to the store, never to w, and leave a line that is printed before the model's next
	// call, where the revision they made first shows.
	var said meanwhile
	teammate := func(edit plan.Update, line string, next plantest.Turn) plantest.Turn {
		return func(in []*schema.Message) *schema.Message {
			if _, err := store.Put(ctx, edit); err != nil {
				panic(err)
			}
			said.set(line)
			return next(in)
		}
	}
	withDocs := strings.Replace(releasePlan, "- [ ] Run the preflight checks", "- [ ] Update the docs\n- [ ] Run the preflight checks", 1)
	withDocs = strings.Replace(withDocs, "- [ ] Write the changelog", "- [x] Write the changelog — see CHANGES.md", 1)
	model := plantest.NewScriptedModel(
		plantest.CallTool("list_plans", `{}`),
		plantest.CallTool("write_plan", `{"name":"release","content":`+jsonString(releasePlan)+`,"last_known_revision":0}`),
		plantest.CallTool("set_plan_status", `{"name":"release","status":"in-progress","last_known_revision":1}`),
		// A teammate renames the plan (revision 3); the step move names revision 2 and applies.
		teammate(plan.Update{Name: "release", Title: "Release 2.0 (final)"},
			"Meanwhile a teammate renames the plan through the Store: revision 3.",
			plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"completed","note":"see CHANGES.md","last_known_revision":2}`)),
		// A teammate adds a step before step 2 (revision 5): step 2 is no longer what the model means.
		teammate(plan.Update{Name: "release", Content: &withDocs},
			"Meanwhile a teammate adds a step before step 2 through the Store: revision 5.",
			plantest.CallTool("update_plan_step", `{"name":"release","step":2,"status":"in_progress","last_known_revision":4}`)),
		plantest.CallTool("read_plan", `{"name":"release","since_revision":4}`),
		plantest.CallTool("update_plan_step", `{"name":"release","step":3,"status":"in_progress","last_known_revision":5}`),
		plantest.Answer("Changelog done; the preflight checks are mine now."),
	)

	mw, err := plan.New(ctx, &plan.Config{
		Backend:   backend,
		AgentName: "release-bot",
	})
	if err != nil {
		return err
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "release-bot",
		Description: "Ships releases",
		Instruction: "You ship releases.",
		Model:       model,
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	if err != nil {
		return err
	}

	fmt.Fprintln(w, "An agent plans a release. Model tool calls (→) and tool results (←):")
	if err := eventlog.Run(ctx, agent, "Ship release 2.0", func(ev *adk.AgentEvent) { printEvent(w, ev, &said) }); err != nil {
		return err
	}

	p, err := store.Get(ctx, "release")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nThe plan as stored (revision %d, status %q, author %q):\n%s", p.Revision, p.Status, p.Author, p.Content)
	return nil
}

// meanwhile is what happened between two model turns, to print before the next call.
type meanwhile struct {
	mu   sync.Mutex
	line string
}

func (m *meanwhile) set(line string) {
	m.mu.Lock()
	m.line = line
	m.mu.Unlock()
}

func (m *meanwhile) take() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	line := m.line
	m.line = ""
	return line
}

func printEvent(w io.Writer, ev *adk.AgentEvent, said *meanwhile) {
	if ev.Output != nil {
		// The middleware reports every change to a plan as an event of the run.
		if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok {
			fmt.Fprintf(w, "  ● change: %s %s → revision %d, %d/%d steps done\n",
				c.Name, c.Action, c.Revision, c.Progress.Completed, c.Progress.Total)
		}
	}
	if ev.Output == nil || ev.Output.MessageOutput == nil || ev.Output.MessageOutput.Message == nil {
		return
	}
	msg := ev.Output.MessageOutput.Message
	switch {
	case msg.Role == schema.Assistant && len(msg.ToolCalls) > 0:
		if line := said.take(); line != "" {
			fmt.Fprintf(w, "\n  %s\n", line)
		}
		for _, tc := range msg.ToolCalls {
			fmt.Fprintf(w, "\n→ %s %s\n", tc.Function.Name, eventlog.Shorten(tc.Function.Arguments, 160))
		}
	case msg.Role == schema.Tool:
		switch {
		case strings.Contains(msg.Content, `"revision_conflict"`):
			fmt.Fprintf(w, "← %s\n", msg.Content)
			fmt.Fprintln(w, "  Step 2 is another step since revision 5, so the move was refused and nothing")
			fmt.Fprintln(w, "  changed. The model catches up.")
		case strings.Contains(msg.Content, `"revision":4,"step":1`):
			fmt.Fprintf(w, "← %s\n", eventlog.Shorten(msg.Content, 160))
			fmt.Fprintln(w, "  The move named revision 2, and only the title changed since, so it applied as")
			fmt.Fprintln(w, "  revision 4.")
		default:
			fmt.Fprintf(w, "← %s\n", eventlog.Shorten(msg.Content, 160))
		}
	case msg.Role == schema.Assistant:
		fmt.Fprintf(w, "\nAgent: %s\n", msg.Content)
	}
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
