// Command realmodel runs the multi-agent planning session of examples/multiagent against a
// real model: a deep agent plans and a worker sub-agent carries the steps out, both with
// the plan middleware on one backend, on any OpenAI-compatible endpoint.
//
//	export OPENAI_API_KEY=...                      # required
//	export OPENAI_MODEL=gpt-4o-mini                # required
//	export OPENAI_BASE_URL=http://localhost:11434/v1  # optional; default OpenAI
//	go run . [-dir DIR] [-goal "..."] [-timeout 5m]
//
// Without OPENAI_API_KEY and OPENAI_MODEL it says what to set and exits with status 2.
// Progress is printed live from the run's events, one bar per plan change; the worker's
// changes reach the orchestrator's event stream because its ToolsConfig sets
// EmitInternalEvents. At the end every plan is printed as stored.
//
// This is its own module, so the root module depends on nothing but Eino.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/examples/internal/eventlog"
	"github.com/einoplan/plan/examples/internal/team"
)

func main() {
	os.Exit(realMain(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

const usageEnv = `realmodel needs an OpenAI-compatible endpoint. Set:
  OPENAI_API_KEY   the API key (required; any non-empty text for endpoints without keys)
  OPENAI_MODEL     the model name, e.g. gpt-4o-mini (required; it must support tool calls)
  OPENAI_BASE_URL  the endpoint, e.g. http://localhost:11434/v1 (optional; default OpenAI)
`

// endpoint is where the models are.
type endpoint struct {
	APIKey, BaseURL, Model string
}

// endpointFromEnv reads the endpoint, naming every required variable that is missing.
func endpointFromEnv(getenv func(string) string) (endpoint, error) {
	e := endpoint{
		APIKey:  strings.TrimSpace(getenv("OPENAI_API_KEY")),
		BaseURL: strings.TrimSpace(getenv("OPENAI_BASE_URL")),
		Model:   strings.TrimSpace(getenv("OPENAI_MODEL")),
	}
	var missing []string
	if e.APIKey == "" {
		missing = append(missing, "OPENAI_API_KEY")
	}
	if e.Model == "" {
		missing = append(missing, "OPENAI_MODEL")
	}
	if len(missing) > 0 {
		return e, fmt.Errorf("missing %s", strings.Join(missing, " and "))
	}
	return e, nil
}

// realMain is main with its inputs and outputs passed in; it returns the exit status:
// 0 done, 1 the session failed, 2 usage or configuration error.
func realMain(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("realmodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "keep plans in this folder (default: a new temporary folder)")
	goal := fs.String("goal", "Prepare and publish version 1.0 of a small command-line tool.", "what the agents should plan and do")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ep, err := endpointFromEnv(getenv)
	if err != nil {
		fmt.Fprint(stderr, usageEnv)
		fmt.Fprintf(stderr, "realmodel: %v\n", err)
		return 2
	}
	if *dir == "" {
		tmp, err := os.MkdirTemp("", "plans-")
		if err != nil {
			fmt.Fprintln(stderr, "realmodel:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		*dir = tmp
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	newModel := func(ctx context.Context) (model.ToolCallingChatModel, error) {
		return openai.NewChatModel(ctx, &openai.ChatModelConfig{APIKey: ep.APIKey, BaseURL: ep.BaseURL, Model: ep.Model})
	}
	if err := run(ctx, stdout, *dir, *goal, newModel); err != nil {
		fmt.Fprintln(stderr, "realmodel:", err)
		return 1
	}
	return 0
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

const orchestratorInstruction = `You plan work and delegate it; you do not do the steps yourself.
1. Call plan_template with the goal and follow its guide.
2. Write one plan of 4 or 5 checklist steps with write_plan (last_known_revision 0).
3. Hand the steps to the worker with the task tool (subagent_type "worker"), naming the plan and the step numbers.
4. When the worker is done, call get_plan_status and set the plan's status to "done" with the revision it reported.
Then answer with a two-sentence summary.`

const workerInstruction = `You carry out steps of a plan you are given. You have no tools besides the plan tools, so do
each step's work in your head and keep it brief.
Read the plan with read_plan. For each step you were given, in order, call update_plan_step with
status "in_progress", then again with status "completed" and a one-line note of what you did, each
time passing the latest revision you have as last_known_revision. If a call returns
revision_conflict, catch up with read_plan since_revision and retry. Finish with a one-paragraph summary.`

// run plans and carries out goal with two agents on models made by newModel, printing
// progress to w, then prints every plan as stored.
func run(ctx context.Context, w io.Writer, dir, goal string, newModel func(context.Context) (model.ToolCallingChatModel, error)) error {
	backend, closeBackend, err := openBackend(dir)
	if err != nil {
		return err
	}
	defer closeBackend()
	orchestratorModel, err := newModel(ctx)
	if err != nil {
		return err
	}
	workerModel, err := newModel(ctx)
	if err != nil {
		return err
	}
	orchestrator, err := team.New(ctx, team.Config{
		Backend:                 backend,
		OrchestratorModel:       orchestratorModel,
		WorkerModel:             workerModel,
		OrchestratorDescription: "Plans work and delegates its steps.",
		OrchestratorInstruction: orchestratorInstruction,
		WorkerInstruction:       workerInstruction,
		OrchestratorIterations:  30,
		WorkerIterations:        40,
	})
	if err != nil {
		return err
	}

	fmt.Fprintf(w, "Goal: %s\n", goal)
	if err := eventlog.Run(ctx, orchestrator, goal, func(ev *adk.AgentEvent) { eventlog.Print(w, ev, 100, 160) }); err != nil {
		return err
	}

	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	if err != nil {
		return err
	}
	listing, err := store.ListPage(ctx, plan.ListOptions{})
	if err != nil {
		return err
	}
	if len(listing.Plans) == 0 {
		return errors.New("the model wrote no plan")
	}
	for _, sum := range listing.Plans {
		p, err := store.Get(ctx, sum.Name)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nPlan %s: %q, status %s, revision %d, %s %d/%d\n%s", p.Name, p.Title, p.Status,
			p.Revision, eventlog.Bar(sum.Progress, 10), sum.Progress.Completed, sum.Progress.Total, p.Content)
	}
	return nil
}
