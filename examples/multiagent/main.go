// Command multiagent runs a deep agent that plans and a worker sub-agent that executes,
// both driven by scripted models, so it needs no network and no API key. The two agents
// share one plan: each has the plan middleware, both on one LocalBackend.
//
// The orchestrator (deep.New) asks plan_template for the writing guide, writes a plan of
// five checklist steps and hands them to the worker through deep's task tool. The worker
// reads the plan and marks each step in_progress, then completed, naming the revision it
// read, so a concurrent edit would be refused instead of lost.
//
// Progress is printed live, one bar per change, from the run's own events: every mutation
// made through the middleware during a run is emitted as an Eino event whose
// Output.CustomizedOutput is a plan.Change. The worker's events reach the orchestrator's
// iterator because the orchestrator's ToolsConfig sets EmitInternalEvents, which makes the
// task tool forward its sub-agent's events; without it only the orchestrator's own changes
// would appear there, and Config.OnChange would be the way to watch the worker.
//
//	go run ./examples/multiagent            # plans in a new temporary folder
//	go run ./examples/multiagent -dir DIR   # plans as Markdown files in DIR/plans
//	planctl -dir DIR/plans show ship        # the plan, as people see it
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/examples/internal/eventlog"
	"github.com/einoplan/plan/examples/internal/team"
	"github.com/einoplan/plan/plantest"
)

func main() {
	dir := flag.String("dir", "", "keep plans in this folder (default: a new temporary folder)")
	flag.Parse()
	if err := runMain(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "multiagent:", err)
		os.Exit(1)
	}
}

func runMain(dir string) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "plans-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	return run(context.Background(), os.Stdout, dir)
}

// openBackend returns the backend the agents share: Markdown files under dir, the plans
// in dir/plans (the middleware's default BaseDir).
func openBackend(dir string) (plan.Backend, func(), error) {
	b, err := plan.NewLocalBackend(dir)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { b.Close() }, nil
}

const planName = "ship"

const shipPlan = `# Ship the 2.0 release
- [ ] Freeze the main branch
- [ ] Run the full test suite
- [ ] Write the changelog
- [ ] Tag v2.0.0
- [ ] Publish the release notes
`

func run(ctx context.Context, w io.Writer, dir string) error {
	backend, closeBackend, err := openBackend(dir)
	if err != nil {
		return err
	}
	defer closeBackend()

	worker := workerModel()
	orchestrator, err := team.New(ctx, team.Config{
		Backend:                 backend,
		OrchestratorModel:       orchestratorModel(),
		WorkerModel:             worker,
		OrchestratorDescription: "Plans a release and delegates its steps.",
		OrchestratorInstruction: "You plan releases and delegate the work to the worker.",
		WorkerInstruction:       "You carry out plan steps. Read the plan, then mark each step in_progress and completed.",
		OrchestratorIterations:  30,
	})
	if err != nil {
		return err
	}

	fmt.Fprintln(w, "An orchestrator plans a release and a worker carries it out.")
	if err := eventlog.Run(ctx, orchestrator, "Ship release 2.0", func(ev *adk.AgentEvent) { eventlog.Print(w, ev, 90, 120) }); err != nil {
		return err
	}

	if calls := worker.Calls(); len(calls) > 0 {
		fmt.Fprintf(w, "\nThe worker is lean (Config.LeanWorker): its model saw the tools %s.\n", strings.Join(calls[0].ToolNames(), ", "))
	}

	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	if err != nil {
		return err
	}
	p, err := store.Get(ctx, planName)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nFinal plan %s: %q, status %s, revision %d, author %s\n%s",
		p.Name, p.Title, p.Status, p.Revision, p.Author, p.Content)
	return nil
}

// orchestratorModel plays the orchestrator: template, plan, two delegations, then it
// checks the plan and closes it at the revision it read.
func orchestratorModel() *plantest.ScriptedModel {
	return plantest.NewScriptedModel(
		plantest.CallTool("plan_template", `{"goal":"Ship release 2.0"}`),
		plantest.CallTool("write_plan", `{"name":"ship","content":`+jsonString(shipPlan)+`,"status":"in-progress","last_known_revision":0}`),
		plantest.CallTool("task", `{"subagent_type":"worker","description":"Carry out steps 1 to 3 of plan ship."}`),
		plantest.CallTool("task", `{"subagent_type":"worker","description":"Carry out steps 4 and 5 of plan ship."}`),
		plantest.CallTool("get_plan_status", `{"name":"ship"}`),
		withRevision(func(rev int64) plantest.Turn {
			return plantest.CallTool("set_plan_status", fmt.Sprintf(`{"name":"ship","status":"done","last_known_revision":%d}`, rev))
		}),
		plantest.Answer("Release 2.0 is shipped: every step of plan ship is completed."),
	)
}

// workerModel plays the worker across both delegations: each time it reads the plan, then
// marks its steps, naming the revision the previous result reported.
func workerModel() *plantest.ScriptedModel {
	var turns []plantest.Turn
	for _, steps := range [][]int{{1, 2, 3}, {4, 5}} {
		turns = append(turns, plantest.CallTool("read_plan", `{"name":"ship"}`))
		for _, n := range steps {
			for _, state := range []string{"in_progress", "completed"} {
				turns = append(turns, stepTurn(n, state))
			}
		}
		turns = append(turns, plantest.Answer(fmt.Sprintf("Steps %s of plan ship are completed.", joinInts(steps))))
	}
	return plantest.NewScriptedModel(turns...)
}

func stepTurn(step int, state string) plantest.Turn {
	return withRevision(func(rev int64) plantest.Turn {
		return plantest.CallTool("update_plan_step",
			fmt.Sprintf(`{"name":"ship","step":%d,"status":%q,"last_known_revision":%d}`, step, state, rev))
	})
}

var revisionField = regexp.MustCompile(`"revision":(\d+)`)

// withRevision builds a turn from the revision in the latest plan tool result the model
// was shown, as a model would copy it from read_plan or update_plan_step.
func withRevision(next func(rev int64) plantest.Turn) plantest.Turn {
	return func(input []*schema.Message) *schema.Message {
		for i := len(input) - 1; i >= 0; i-- {
			if input[i].Role != schema.Tool {
				continue
			}
			if m := revisionField.FindStringSubmatch(input[i].Content); m != nil {
				rev, _ := strconv.ParseInt(m[1], 10, 64)
				return next(rev)(input)
			}
		}
		return next(0)(input)
	}
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
