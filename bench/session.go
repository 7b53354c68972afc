package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/plantask"

	"github.com/einoplan/plan"
)

// A session: an orchestrator writes a plan of Steps steps, Workers agents take the next
// free step until none is left, and the orchestrator closes the plan. Every agent is a real
// adk.ChatModelAgent driven by a reactiveModel.

// Session kinds.
const (
	kindPlan     = "plan"     // this library's tools
	kindPlantask = "plantask" // Eino's plantask: TaskCreate, TaskList, TaskUpdate
)

// sessionSpec says what one session runs. With Procs 0 the workers are goroutines of the
// session's process; otherwise they are split over Procs worker processes, which need a
// LocalBackend.
type sessionSpec struct {
	Kind    string   `json:"kind"`
	Local   bool     `json:"local"` // LocalBackend on a temp folder, else MemoryBackend
	Procs   int      `json:"procs"`
	Steps   int      `json:"steps"`
	Workers int      `json:"workers"`
	Recover string   `json:"recover"`         // recoverRead or recoverStatus (kind plan)
	History int      `json:"history"`         // StoreConfig.HistoryLimit: 0 is the build's default
	Dir     string   `json:"dir,omitempty"`   // the LocalBackend root (worker processes)
	Names   []string `json:"names,omitempty"` // the workers a worker process runs
}

// sessionReport is the outcome of one session.
type sessionReport struct {
	Spec      sessionSpec `json:"spec"`
	Agents    []agentLog  `json:"agents"` // the orchestrator first
	Wall      int64       `json:"wall_ns"`
	Revision  int64       `json:"revision"`   // the plan's final revision (kind plan)
	StepsLeft int         `json:"steps_left"` // steps not completed at the end
	Status    string      `json:"status"`     // the plan's final status (kind plan)
}

// sessionAgent is one agent of a session: its model, its log, and its plantask backend view.
type sessionAgent struct {
	model *reactiveModel
	log   *agentLog
	ow    *overwriteCounter
}

// finish fills in turns, tokens and overwrites once the session is over.
func (a *sessionAgent) finish(c *counter) agentLog {
	a.log.Turns = a.model.turns
	a.log.TokensIn, a.log.TokensOut = a.model.tokens(c)
	if a.ow != nil {
		a.log.Overwrites = a.ow.overwrites()
	}
	return *a.log
}

// sessionEnv is the storage a process's agents share.
type sessionEnv struct {
	backend plan.Backend
	store   *plan.Store
}

func openEnv(b plan.Backend, history int) (*sessionEnv, error) {
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: plansDir, HistoryLimit: history})
	if err != nil {
		return nil, err
	}
	return &sessionEnv{backend: b, store: s}, nil
}

// middleware returns the tools an agent of kind gets; ow, when set, is the agent's
// plantask backend view.
func (e *sessionEnv) middleware(ctx context.Context, kind, name string, ow *overwriteCounter) (adk.ChatModelAgentMiddleware, error) {
	if kind == kindPlan {
		return plan.New(ctx, &plan.Config{Store: e.store, AgentName: name})
	}
	var b plantask.Backend = taskBackend{e.backend}
	if ow != nil {
		b = ow
	}
	return plantask.New(ctx, &plantask.Config{Backend: b, BaseDir: tasksDir})
}

// runAgent runs one agent to its final answer and returns the first error event.
func runAgent(ctx context.Context, name string, m *reactiveModel, mw adk.ChatModelAgentMiddleware) error {
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: name, Description: "works on the shared plan", Instruction: "Take the next free step and complete it, until none is left.",
		Model: m, Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 100000,
	})
	if err != nil {
		return err
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "Work on the plan.")
	for {
		ev, ok := iter.Next()
		if !ok {
			return nil
		}
		if ev.Err != nil {
			return ev.Err
		}
	}
}

// maxRestarts bounds the runs a plantask worker starts again after a tool's Go error
// ended one (a task deleted under it, say).
const maxRestarts = 5

// runWorkers runs the named workers concurrently on e until each has no step left.
func runWorkers(ctx context.Context, e *sessionEnv, spec sessionSpec, names []string) ([]*sessionAgent, error) {
	agents := make([]*sessionAgent, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		log := newAgentLog(name)
		a := &sessionAgent{log: log}
		var restart func()
		if spec.Kind == kindPlan {
			a.model = newReactiveModel(&planWorker{recover: spec.Recover, log: log})
		} else {
			w := &taskWorker{name: name, log: log}
			a.model, restart = newReactiveModel(w), w.restart
			a.ow = newOverwriteCounter(e.backend, name)
		}
		agents[i] = a
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				mw, err := e.middleware(ctx, spec.Kind, name, a.ow)
				if err != nil {
					errs[i] = err
					return
				}
				err = runAgent(ctx, name, a.model, mw)
				if err == nil {
					return
				}
				if restart == nil || log.Aborted >= maxRestarts {
					errs[i] = fmt.Errorf("%s: %w", name, err)
					return
				}
				log.Aborted++
				log.AbortErrors = append(log.AbortErrors, err.Error())
				restart()
			}
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return agents, err
		}
	}
	return agents, nil
}

// runOrchestrator plays one of the orchestrator's two runs.
func runOrchestrator(ctx context.Context, e *sessionEnv, spec sessionSpec, a *sessionAgent, finish bool) error {
	if spec.Kind == kindPlan {
		a.model.d = &planOrchestrator{steps: spec.Steps, finish: finish, log: a.log}
	} else {
		a.model.d = &taskOrchestrator{steps: spec.Steps, finish: finish}
	}
	mw, err := e.middleware(ctx, spec.Kind, "orchestrator", nil)
	if err != nil {
		return err
	}
	return runAgent(ctx, "orchestrator", a.model, mw)
}

// workerNames returns worker-1 ... worker-n.
func workerNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("worker-%d", i+1)
	}
	return names
}

// runSession runs one session in this process (and its worker processes) and reports it.
func runSession(ctx context.Context, spec sessionSpec) (*sessionReport, error) {
	var backend plan.Backend = plan.NewMemoryBackend()
	if spec.Local || spec.Procs > 0 {
		dir, err := os.MkdirTemp("", "plan-session-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		lb, err := plan.NewLocalBackend(dir)
		if err != nil {
			return nil, err
		}
		defer lb.Close()
		backend, spec.Dir = lb, dir
	}
	e, err := openEnv(backend, spec.History)
	if err != nil {
		return nil, err
	}
	orch := &sessionAgent{model: newReactiveModel(nil), log: newAgentLog("orchestrator")}

	start := time.Now()
	if err := runOrchestrator(ctx, e, spec, orch, false); err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	var local []*sessionAgent
	var remote []agentLog
	if spec.Procs == 0 {
		local, err = runWorkers(ctx, e, spec, workerNames(spec.Workers))
	} else {
		remote, err = runWorkerProcesses(ctx, spec)
	}
	if err != nil {
		return nil, err
	}
	if err := runOrchestrator(ctx, e, spec, orch, true); err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	rep := &sessionReport{Spec: spec, Wall: int64(time.Since(start))}

	c, err := newCounter()
	if err != nil {
		return nil, err
	}
	rep.Agents = append(rep.Agents, orch.finish(c))
	for _, a := range local {
		rep.Agents = append(rep.Agents, a.finish(c))
	}
	rep.Agents = append(rep.Agents, remote...)
	if err := rep.readOutcome(ctx, e); err != nil {
		return nil, err
	}
	return rep, nil
}

// readOutcome records the final state: the plan's revision, status and steps not
// completed, or the plantask tasks not completed (plantask deletes every task once all are
// completed, so no task file left means none is open).
func (r *sessionReport) readOutcome(ctx context.Context, e *sessionEnv) error {
	if r.Spec.Kind == kindPlan {
		p, err := e.store.Get(ctx, sessionPlanName)
		if err != nil {
			return err
		}
		r.Revision, r.Status = p.Revision, p.Status
		for _, s := range plan.ParseSteps(p.Content) {
			if s.State != plan.StepCompleted {
				r.StepsLeft++
			}
		}
		return nil
	}
	files, err := e.backend.LsInfo(ctx, &driver.LsInfoRequest{Path: tasksDir})
	if err != nil {
		return err
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".json") {
			continue
		}
		path := f.Path
		if !strings.HasPrefix(path, "/") {
			path = tasksDir + "/" + path
		}
		fc, err := e.backend.Read(ctx, &driver.ReadRequest{FilePath: path})
		if err != nil {
			return err
		}
		var t taskFile
		if err := json.Unmarshal([]byte(fc.Content), &t); err != nil {
			return err
		}
		if t.Status != "completed" {
			r.StepsLeft++
		}
	}
	return nil
}

// Child processes: the bench binary runs as a session or as worker processes when
// sessionRoleEnv is set, reading its sessionSpec from sessionSpecEnv and printing its
// result as one JSON line. This works in any build that holds the session files, the test
// binary and a build of an earlier commit included.
const (
	sessionRoleEnv = "PLAN_BENCH_SESSION_ROLE"
	sessionSpecEnv = "PLAN_BENCH_SESSION_SPEC"
	roleSession    = "session"
	roleWorkers    = "workers"
)

func init() {
	role := os.Getenv(sessionRoleEnv)
	if role == "" {
		return
	}
	os.Exit(childMain(role))
}

func childMain(role string) int {
	var spec sessionSpec
	if err := json.Unmarshal([]byte(os.Getenv(sessionSpecEnv)), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "bench session:", err)
		return 2
	}
	ctx := context.Background()
	var out any
	var err error
	switch role {
	case roleSession:
		out, err = runSession(ctx, spec)
	case roleWorkers:
		out, err = workerProcess(ctx, spec)
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench session:", err)
		return 1
	}
	js, err := json.Marshal(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench session:", err)
		return 1
	}
	fmt.Println(string(js))
	return 0
}

// workerProcess runs spec.Names on the LocalBackend at spec.Dir.
func workerProcess(ctx context.Context, spec sessionSpec) ([]agentLog, error) {
	lb, err := plan.NewLocalBackend(spec.Dir)
	if err != nil {
		return nil, err
	}
	defer lb.Close()
	e, err := openEnv(lb, spec.History)
	if err != nil {
		return nil, err
	}
	agents, err := runWorkers(ctx, e, spec, spec.Names)
	if err != nil {
		return nil, err
	}
	c, err := newCounter()
	if err != nil {
		return nil, err
	}
	logs := make([]agentLog, len(agents))
	for i, a := range agents {
		logs[i] = a.finish(c)
	}
	return logs, nil
}

// runWorkerProcesses splits the workers over spec.Procs processes of this binary and
// collects their logs.
func runWorkerProcesses(ctx context.Context, spec sessionSpec) ([]agentLog, error) {
	names := workerNames(spec.Workers)
	type result struct {
		logs []agentLog
		err  error
	}
	results := make([]result, spec.Procs)
	var wg sync.WaitGroup
	for p := 0; p < spec.Procs; p++ {
		child := spec
		child.Names = nil
		for i := p; i < len(names); i += spec.Procs {
			child.Names = append(child.Names, names[i])
		}
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			var logs []agentLog
			err := runChild(ctx, "", roleWorkers, child, &logs)
			results[p] = result{logs, err}
		}(p)
	}
	wg.Wait()
	var all []agentLog
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		all = append(all, r.logs...)
	}
	return all, nil
}

// runChild runs binary (this one when "") in role with spec and decodes the last line of
// its output into out.
func runChild(ctx context.Context, binary, role string, spec sessionSpec, out any) error {
	if binary == "" {
		self, err := os.Executable()
		if err != nil {
			return err
		}
		binary = self
	}
	js, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, binary)
	cmd.Env = append(os.Environ(), sessionRoleEnv+"="+role, sessionSpecEnv+"="+string(js))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", binary, role, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	return json.Unmarshal([]byte(lines[len(lines)-1]), out)
}
