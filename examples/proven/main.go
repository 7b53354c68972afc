// Command proven shows the host keeping the books of proven steps: a real Eino
// ChatModelAgent, driven by a scripted model (no network, no API key), fixes two parsers.
// Each fix step ends "(proof run_tests)", and with Config.AdvanceOnProof the passing test
// run completes the step and hands the agent the next one: the model makes no plan call
// between steps, and reads one line after the history instead.
//
//	go run ./examples/proven
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/examples/internal/eventlog"
	"github.com/einoplan/plan/plantest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "proven:", err)
		os.Exit(1)
	}
}

const fixPlan = `# Fix the parsers
- [ ] Fix the date parser (uses edit_file) (proof run_tests)
- [ ] Fix the number parser (uses edit_file) (proof run_tests)
- [ ] Tell the team
`

func run(ctx context.Context, w io.Writer) error {
	store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	if err != nil {
		return err
	}
	if _, err := store.Put(ctx, plan.Update{Name: "parsers", Content: ptr(fixPlan)}); err != nil {
		return err
	}
	mw, err := plan.New(ctx, &plan.Config{
		Store:          store,
		AgentName:      "coder",
		AdvanceOnProof: true,
		// The host judges a test run: it passed unless it says FAIL.
		ProofResult: func(_, result string) bool { return !strings.HasPrefix(result, "FAIL") },
	})
	if err != nil {
		return err
	}
	var told note
	model := plantest.NewScriptedModel(
		told.read(call("update_plan_step", `{"status":"in_progress"}`)),
		told.read(call("edit_file", `{"path":"date.go"}`)),
		told.read(call("run_tests", `{"pkg":"./date"}`)),
		told.read(call("edit_file", `{"path":"date.go"}`)),
		told.read(call("run_tests", `{"pkg":"./date"}`)),
		told.read(call("edit_file", `{"path":"number.go"}`)),
		told.read(call("run_tests", `{"pkg":"./number"}`)),
		told.read(call("update_plan_step", `{"next":true,"note":"posted in #parsers"}`)),
		told.read(plantest.Answer("Both parsers are fixed and the team knows.")),
	)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "coder",
		Description: "Fixes code",
		Instruction: "You fix code.",
		Model:       model,
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{editFile{}, &testRunner{}}}},
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "An agent fixes two parsers. Model tool calls (→), tool results (←), and what the host tells")
	fmt.Fprintln(w, "the model after the history (✎):")
	if err := eventlog.Run(ctx, agent, "Fix the parsers", func(ev *adk.AgentEvent) { printEvent(w, ev, &told) }); err != nil {
		return err
	}
	p, err := store.Get(ctx, "parsers")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nThe plan as stored (revision %d): each proven step carries the run the host saw.\n%s", p.Revision, p.Content)
	return nil
}

func call(name, args string) plantest.Turn { return plantest.CallTool(name, args) }

// note keeps, for each model call in order, what the host appended after the history ("" for
// nothing), to print with the model's message of that call.
type note struct {
	mu    sync.Mutex
	calls []string
}

// read wraps turn: it keeps the line the model received after its tool results, if any.
func (n *note) read(turn plantest.Turn) plantest.Turn {
	return func(in []*schema.Message) *schema.Message {
		text := ""
		if k := len(in); k >= 2 && in[k-1].Role == schema.User && in[k-2].Role == schema.Tool {
			text = in[k-1].Content
		}
		n.mu.Lock()
		n.calls = append(n.calls, text)
		n.mu.Unlock()
		return turn(in)
	}
}

// take is what the host told the model on its oldest call not printed yet.
func (n *note) take() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.calls) == 0 {
		return ""
	}
	text := n.calls[0]
	n.calls = n.calls[1:]
	return text
}

func printEvent(w io.Writer, ev *adk.AgentEvent, told *note) {
	if ev.Output == nil || ev.Output.MessageOutput == nil || ev.Output.MessageOutput.Message == nil {
		return
	}
	msg := ev.Output.MessageOutput.Message
	if msg.Role == schema.Assistant {
		if text := told.take(); text != "" {
			fmt.Fprintf(w, "  ✎ %s\n", text)
		}
	}
	switch {
	case msg.Role == schema.Assistant && len(msg.ToolCalls) > 0:
		for _, tc := range msg.ToolCalls {
			fmt.Fprintf(w, "\n→ %s %s\n", tc.Function.Name, tc.Function.Arguments)
		}
	case msg.Role == schema.Tool:
		fmt.Fprintf(w, "← %s\n", eventlog.Shorten(msg.Content, 240))
	case msg.Role == schema.Assistant:
		fmt.Fprintf(w, "\nAgent: %s\n", msg.Content)
	}
}

// editFile edits a file of the workspace (here: it only says so).
type editFile struct{}

func (editFile) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "edit_file", Desc: "Edit a source file.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"path": {Type: schema.String, Required: true}})}, nil
}

func (editFile) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return "edited", nil
}

// testRunner runs a package's tests: the first run fails, every later one passes.
type testRunner struct {
	mu   sync.Mutex
	runs int
}

func (*testRunner) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "run_tests", Desc: "Run a package's tests.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"pkg": {Type: schema.String, Required: true}})}, nil
}

func (r *testRunner) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs++
	if r.runs == 1 {
		return "FAIL: TestParseDate (1 of 9 failed)", nil
	}
	return "ok: 9 passed", nil
}

func ptr[T any](v T) *T { return &v }
