// Command approval shows a person approving a plan before any of its steps starts. An
// orchestrator (a scripted model, so no network and no API key) writes a plan and calls
// request_plan_approval, which pauses the run through an Eino interrupt; the Runner keeps
// a checkpoint. The person reads the plan in the terminal and approves it, rejects it with
// feedback (the orchestrator revises it and asks again), or edits it and approves the
// edit. The run resumes with the decision, and a worker sub-agent carries out the approved
// steps: with Config.RequireApproval, update_plan_step refuses to move a step of a plan that
// is not approved. The worker's file tool (write_file, from Eino's filesystem middleware) is
// gated (Config.GatedTools): it writes only while the worker holds a step of the approved
// plan that names it, "(uses write_file)", so its first write, before it took a step, is
// refused, and every write that runs is reported with the step it ran under. The person is
// shown what each step may use.
//
//	go run ./examples/approval                   # asks you in the terminal
//	go run ./examples/approval -decide approve   # approves at once
//	go run ./examples/approval -decide reject    # rejects with feedback, approves the revision
//	go run ./examples/approval -dir DIR          # plans as Markdown files in DIR/plans
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/filesystem"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/examples/internal/eventlog"
	"github.com/einoplan/plan/plantest"
)

func main() {
	dir := flag.String("dir", "", "keep plans as files in this folder (default: in memory)")
	decide := flag.String("decide", "", "decide without asking: approve, or reject (then approve the revision)")
	flag.Parse()
	var backend plan.Backend = plan.NewMemoryBackend()
	if *dir != "" {
		local, err := plan.NewLocalBackend(*dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "approval:", err)
			os.Exit(1)
		}
		backend = local
	}
	person, err := personFor(*decide, os.Stdin, os.Stdout)
	if err == nil {
		err = run(context.Background(), os.Stdout, backend, person)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "approval:", err)
		os.Exit(1)
	}
}

const planName = "release"

const releasePlan = `# Release 2.0
- [ ] Write the changelog (uses write_file)
- [ ] Run the preflight checks (uses write_file)
- [ ] Tag and publish (uses write_file)
`

// person decides on one approval request.
type person func(req plan.ApprovalRequest) (plan.ApprovalDecision, error)

func personFor(decide string, in io.Reader, out io.Writer) (person, error) {
	switch decide {
	case "":
		return terminal(bufio.NewReader(in), out), nil
	case "approve":
		return func(plan.ApprovalRequest) (plan.ApprovalDecision, error) {
			return plan.ApprovalDecision{Approved: true, By: "release-manager"}, nil
		}, nil
	case "reject":
		asked := 0
		return func(plan.ApprovalRequest) (plan.ApprovalDecision, error) {
			if asked++; asked == 1 {
				return plan.ApprovalDecision{By: "release-manager", Feedback: "Add a rollback step before publishing."}, nil
			}
			return plan.ApprovalDecision{Approved: true, By: "release-manager"}, nil
		}, nil
	}
	return nil, fmt.Errorf("-decide %q: use approve or reject", decide)
}

// terminal asks on the terminal: approve, reject with feedback, or edit then approve.
func terminal(in *bufio.Reader, out io.Writer) person {
	line := func(prompt string) (string, error) {
		fmt.Fprint(out, prompt)
		s, err := in.ReadString('\n')
		if err != nil && (s == "" || !errors.Is(err, io.EOF)) {
			return "", err
		}
		return strings.TrimSpace(s), nil
	}
	return func(req plan.ApprovalRequest) (plan.ApprovalDecision, error) {
		name, err := line("Your name: ")
		if err != nil {
			return plan.ApprovalDecision{}, err
		}
		for {
			choice, err := line("[a]pprove, [r]eject, [e]dit: ")
			if err != nil {
				return plan.ApprovalDecision{}, err
			}
			switch strings.ToLower(choice) {
			case "a", "approve":
				return plan.ApprovalDecision{Approved: true, By: name}, nil
			case "r", "reject":
				feedback, err := line("What should change? ")
				return plan.ApprovalDecision{By: name, Feedback: feedback}, err
			case "e", "edit":
				fmt.Fprintln(out, "Type the new plan; end with a line holding only a dot.")
				var b strings.Builder
				for {
					l, err := in.ReadString('\n')
					if strings.TrimRight(l, "\r\n") == "." || err != nil {
						break
					}
					b.WriteString(l)
				}
				content := b.String()
				return plan.ApprovalDecision{Approved: true, By: name, Content: &content}, nil
			}
		}
	}
}

func run(ctx context.Context, w io.Writer, backend plan.Backend, decide person) error {
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	if err != nil {
		return err
	}
	// One middleware serves both agents: the worker, started inside the orchestrator's tool
	// call, is a sub-agent, so it never gets request_plan_approval. GatedTools implies
	// RequireApproval: write_file runs only under a step the calling agent holds of an
	// approved plan, and only a step that names it in its "(uses …)".
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "planner", GatedTools: []string{"write_file"}})
	if err != nil {
		return err
	}
	files := filesystem.NewInMemoryBackend()
	fileTools, err := fsmw.New(ctx, &fsmw.MiddlewareConfig{Backend: files})
	if err != nil {
		return err
	}
	worker, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "worker", Description: "Carries out the steps of an approved plan.",
		Instruction: "You carry out plan steps.", Model: workerModel(ctx, store),
		Handlers: []adk.ChatModelAgentMiddleware{fileTools, mw}, MaxIterations: 40,
	})
	if err != nil {
		return err
	}
	orchestrator, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "planner", Description: "Plans releases.", Instruction: "You plan releases and delegate them.",
		Model: orchestratorModel(), Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 30,
		ToolsConfig: adk.ToolsConfig{
			ToolsNodeConfig:    compose.ToolsNodeConfig{Tools: []tool.BaseTool{adk.NewAgentTool(ctx, worker)}},
			EmitInternalEvents: true,
		},
	})
	if err != nil {
		return err
	}
	// A server would keep checkpoints in a database, so a decision taken hours later, after
	// a restart, still resumes the run.
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: orchestrator, CheckPointStore: newMemoryCheckPoints()})

	const checkPointID = "release-2.0"
	fmt.Fprintln(w, "A planner writes a release plan; a person approves it before a worker starts.")
	iter := runner.Query(ctx, "Ship release 2.0", adk.WithCheckPointID(checkPointID))
	for {
		req, interruptID, err := untilApproval(w, iter)
		if err != nil || interruptID == "" {
			if err == nil {
				err = showPlan(ctx, w, store)
			}
			if err == nil {
				err = showFiles(ctx, w, store, files)
			}
			return err
		}
		showRequest(w, req)
		d, err := decide(req)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  ✋ %s decides: %s\n", d.By, verdict(d)) // what the tool then does is the run's to say
		// The decision goes to the interrupt by its ID; the tool applies it to the revision
		// shown, so a plan that changed meanwhile is never approved unseen.
		iter, err = runner.ResumeWithParams(ctx, checkPointID, &adk.ResumeParams{
			Targets: map[string]any{interruptID: d},
		})
		if err != nil {
			return err
		}
	}
}

// untilApproval prints a run's events until it ends ("" ID) or pauses for an approval.
func untilApproval(w io.Writer, iter *adk.AsyncIterator[*adk.AgentEvent]) (plan.ApprovalRequest, string, error) {
	for {
		ev, ok := iter.Next()
		if !ok {
			return plan.ApprovalRequest{}, "", nil
		}
		if ev.Err != nil {
			return plan.ApprovalRequest{}, "", ev.Err
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			for _, ic := range ev.Action.Interrupted.InterruptContexts {
				if req, ok := ic.Info.(plan.ApprovalRequest); ok && ic.IsRootCause {
					return req, ic.ID, nil
				}
			}
			return plan.ApprovalRequest{}, "", errors.New("the run paused for something else than an approval")
		}
		if ev.Output != nil {
			if c, ok := ev.Output.CustomizedOutput.(plan.GatedCall); ok {
				showGated(w, c)
				continue
			}
		}
		eventlog.Print(w, ev, 100, 200)
	}
}

// showGated prints what the host hears of a call of a gated tool.
func showGated(w io.Writer, c plan.GatedCall) {
	if c.Allowed {
		fmt.Fprintf(w, "  🔓 %s by %s runs under step %d of plan %s (revision %d)\n", c.Tool, c.Agent, c.Step, c.Plan, c.Revision)
		return
	}
	fmt.Fprintf(w, "  🔒 %s by %s refused: %s\n", c.Tool, c.Agent, c.Reason)
}

// showFiles prints the files the worker wrote, one per step.
func showFiles(ctx context.Context, w io.Writer, store *plan.Store, files *filesystem.InMemoryBackend) error {
	p, err := store.Get(ctx, planName)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nFiles the worker wrote:")
	for _, s := range plan.ParseSteps(p.Content) {
		fc, err := files.Read(ctx, &filesystem.ReadRequest{FilePath: stepFile(s.Number)})
		if err != nil {
			fmt.Fprintf(w, "  %s: none\n", stepFile(s.Number))
			continue
		}
		fmt.Fprintf(w, "  %s: %s\n", stepFile(s.Number), strings.TrimSpace(fc.Content))
	}
	return nil
}

func stepFile(n int) string { return fmt.Sprintf("/release/step-%d.md", n) }

func showRequest(w io.Writer, req plan.ApprovalRequest) {
	fmt.Fprintf(w, "\n=== Approval requested: plan %s, revision %d: %q ===\n", req.Name, req.Revision, req.Title)
	if req.Message != "" {
		fmt.Fprintf(w, "The planner says: %s\n", req.Message)
	}
	fmt.Fprint(w, req.Content)
	for _, s := range req.Steps {
		uses := "nothing"
		if len(s.Uses) > 0 {
			uses = strings.Join(s.Uses, ", ")
		}
		fmt.Fprintf(w, "  step %d may use: %s\n", s.Number, uses)
	}
	if req.Diff != "" {
		fmt.Fprintf(w, "Changes since the last approval:\n%s", req.Diff)
	}
}

func verdict(d plan.ApprovalDecision) string {
	switch {
	case d.Approved && d.Content != nil:
		return "approve an edited plan"
	case d.Approved:
		return "approve"
	}
	return fmt.Sprintf("reject (%s)", d.Feedback)
}

func showPlan(ctx context.Context, w io.Writer, store *plan.Store) error {
	p, err := store.Get(ctx, planName)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nThe plan as stored (revision %d", p.Revision)
	if p.Approval != nil {
		fmt.Fprintf(w, ", approved at revision %d by %s", p.Approval.Revision, p.Approval.By)
	}
	fmt.Fprintf(w, "):\n%s", p.Content)
	return nil
}

// orchestratorModel writes the plan, asks for approval, and then either revises the plan
// from the feedback and asks again, or hands the work to the worker.
func orchestratorModel() *plantest.ScriptedModel {
	ask := plantest.CallTool("request_plan_approval", `{"name":"release","message":"Three steps; publishing is last."}`)
	afterDecision := func(input []*schema.Message) *schema.Message {
		last := lastToolResult(input)
		switch {
		case strings.Contains(last, `"approved":true`):
			return plantest.CallTool("worker", `{"request":"Carry out every step of plan release."}`)(input)
		case strings.Contains(last, `"approved":false`):
			revised := strings.Replace(releasePlan, "- [ ] Tag and publish", "- [ ] Prepare a rollback (uses write_file)\n- [ ] Tag and publish", 1)
			return plantest.CallTool("write_plan", `{"name":"release","content":`+jsonString(revised)+`}`)(input)
		}
		return plantest.Answer("Release 2.0 is done.")(input)
	}
	afterWorker := func(input []*schema.Message) *schema.Message {
		if strings.Contains(lastToolResult(input), `"revision"`) { // the revised plan was written
			return plantest.CallTool("request_plan_approval", `{"name":"release","message":"Added a rollback step."}`)(input)
		}
		return plantest.Answer("Release 2.0 is done.")(input)
	}
	return plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"release","content":`+jsonString(releasePlan)+`,"last_known_revision":0}`),
		ask, afterDecision, afterWorker, afterDecision, afterWorker,
	)
}

// workerModel first tries to write before holding any step (the gate refuses), then, for
// each step of the plan in turn, takes it, writes its file, and completes it.
func workerModel(ctx context.Context, store *plan.Store) *plantest.ScriptedModel {
	written := map[int]bool{}
	next := func([]*schema.Message) *schema.Message {
		p, err := store.Get(ctx, planName)
		if err != nil {
			return schema.AssistantMessage("I cannot read plan release: "+err.Error(), nil)
		}
		cur := plan.Summarize(p).CurrentStep
		switch {
		case cur == nil:
			return schema.AssistantMessage("Every step of plan release is completed.", nil)
		case cur.State == plan.StepPending:
			return plantest.CallTool("update_plan_step", fmt.Sprintf(`{"name":"release","step":%d,"status":"in_progress","last_known_revision":%d}`,
				cur.Number, p.Revision))(nil)
		case !written[cur.Number]:
			written[cur.Number] = true
			return plantest.CallTool("write_file", fmt.Sprintf(`{"file_path":%s,"content":%s}`,
				jsonString(stepFile(cur.Number)), jsonString("Done: "+cur.WithoutHolder())))(nil)
		}
		return plantest.CallTool("update_plan_step", fmt.Sprintf(`{"name":"release","step":%d,"status":"completed","last_known_revision":%d}`,
			cur.Number, p.Revision))(nil)
	}
	turns := []plantest.Turn{
		plantest.CallTool("write_file", `{"file_path":"/release/NOTES.md","content":"Starting release 2.0"}`),
		plantest.CallTool("read_plan", `{"name":"release"}`),
	}
	for range 20 {
		turns = append(turns, next)
	}
	return plantest.NewScriptedModel(turns...)
}

func lastToolResult(input []*schema.Message) string {
	for i := len(input) - 1; i >= 0; i-- {
		if input[i].Role == schema.Tool {
			return input[i].Content
		}
	}
	return ""
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// memoryCheckPoints is an adk.CheckPointStore in memory.
type memoryCheckPoints struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newMemoryCheckPoints() *memoryCheckPoints { return &memoryCheckPoints{m: map[string][]byte{}} }

func (s *memoryCheckPoints) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memoryCheckPoints) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[id] = append([]byte(nil), b...)
	return nil
}
