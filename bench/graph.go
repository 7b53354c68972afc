package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/plantask"

	"github.com/einoplan/plan"
)

// A graph session: a plan of graphPhases phases of graphWidth steps, each step of a phase
// waiting for two steps of the phase before; Workers agents take ready steps until none is
// left, and one of them dies holding its first step past the first phase (its run ends
// without finishing it). Kind plan writes the dependencies as "(after a, b)" and runs with
// a HoldTTL; kind plantask creates one task per step and sets its blockedBy with
// TaskUpdate. Every agent is a real adk.ChatModelAgent driven by a reactiveModel.

const (
	graphPhases   = 6
	graphWidth    = 10
	graphPlanName = "graph"
)

// graphSteps is the number of steps of a graph session.
const graphSteps = graphPhases * graphWidth

// graphAfter lists the steps step i (from 1) waits for: two steps of the phase before.
func graphAfter(i int) []int {
	p, j := (i-1)/graphWidth, (i-1)%graphWidth
	if p == 0 {
		return nil
	}
	base := (p - 1) * graphWidth
	return []int{base + j + 1, base + (j+1)%graphWidth + 1}
}

// graphContent is the plan of a graph session, dependencies written as "(after a, b)".
func graphContent() string {
	var b strings.Builder
	b.WriteString("# Migrate the billing tables in phases\n\n")
	for i := 1; i <= graphSteps; i++ {
		fmt.Fprintf(&b, "- [ ] Step %d: migrate table billing_%02d and check its row counts", i, i)
		if a := graphAfter(i); a != nil {
			fmt.Fprintf(&b, " (after %d, %d)", a[0], a[1])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// graphSpec says what one graph session runs.
type graphSpec struct {
	Kind    string
	Workers int
	TTL     time.Duration // kind plan: StoreConfig.HoldTTL; kind plantask: how long workers wait on a stalled list
	Poll    time.Duration // how long a worker waits before asking again when nothing is ready
}

// graphReport is the outcome of one graph session.
type graphReport struct {
	Turns       int            // every agent's model calls, the orchestrator's included
	TokensIn    int            // o200k tokens of every tool call's arguments
	TokensOut   int            // o200k tokens of every tool result
	Errors      map[string]int // error results by code (step_blocked included)
	Conflicts   int            // error results other than step_blocked and the final "no pending step"
	Early       int            // steps started before a step they wait for was completed
	Twice       int            // steps completed more than once
	Left        int            // steps not completed at the end
	Recovery    time.Duration  // from the dead worker's claim call to its step done by another; <0: never
	Aborted     int            // worker runs a tool's Go error ended
	Wall        time.Duration
	DeadStep    int
	DeadClaimed time.Time
}

// graphLog is what the workers of one session share: completions and the dead step.
type graphLog struct {
	mu          sync.Mutex
	completions map[int]int
	claims      map[int]time.Time
	errors      map[string]int
	deadStep    int
	deadAt      time.Time
	recovered   time.Time
	early       int
}

func (g *graphLog) claimed(step int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.claims[step] = time.Now()
}

func (g *graphLog) completed(step int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.completions[step]++
	if step == g.deadStep && g.recovered.IsZero() {
		g.recovered = time.Now()
	}
}

func (g *graphLog) failed(code string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.errors[code]++
}

// die records the dead worker's step, claimed by a call made at asked (so before the
// claim's lease began); it reports false when another worker already died.
func (g *graphLog) die(step int, asked time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.deadStep != 0 {
		return false
	}
	g.deadStep, g.deadAt = step, asked
	return true
}

// graphPlanWorker takes the next ready step with update_plan_step (no step number),
// completes it, and takes the next; on step_blocked it waits Poll and asks again; it stops
// when no pending step is left. A mortal worker dies holding its first step past phase 1.
type graphPlanWorker struct {
	log    *graphLog
	poll   time.Duration
	mortal bool
	asked  time.Time // when the last claim was asked for, before its lease began
	taking bool      // the last call was a take
}

func (w *graphPlanWorker) take() []call {
	w.asked, w.taking = time.Now(), true
	return []call{{"update_plan_step", `{"name":"` + graphPlanName + `","status":"in_progress"}`}}
}

func (w *graphPlanWorker) next(results []string) []call {
	if results == nil {
		return w.take()
	}
	var r struct {
		Step  int `json:"step"`
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(results[0]), &r) != nil {
		return nil
	}
	took := w.taking
	w.taking = false
	switch {
	case r.Error != nil && r.Error.Code == "step_blocked":
		w.log.failed(r.Error.Code)
		time.Sleep(w.poll)
		return w.take()
	case r.Error != nil && r.Error.Code == "illegal_transition":
		w.log.failed(r.Error.Code)
		return nil // nothing pending is left
	case r.Error != nil:
		w.log.failed(r.Error.Code)
		return w.take()
	case took:
		w.log.claimed(r.Step)
		if w.mortal && r.Step > graphWidth && w.log.die(r.Step, w.asked) {
			return nil // the run ends holding the step
		}
		return []call{{"update_plan_step", fmt.Sprintf(`{"name":%q,"step":%d,"status":"completed"}`, graphPlanName, r.Step)}}
	case r.Step > 0:
		w.log.completed(r.Step)
	}
	return w.take()
}

// graphTaskWorker claims the first free task (pending, no owner, not blocked). When no
// task is free while some are open it waits Poll and lists again, and gives up after
// patience without any change.
type graphTaskWorker struct {
	taskCycle
	name     string
	log      *graphLog
	backend  plan.Backend
	poll     time.Duration
	patience time.Duration
	mortal   bool
	stalled  time.Time
	seen     string
	asked    time.Time // when the last claim was asked for
}

func (w *graphTaskWorker) next(results []string) []call { return w.taskCycle.next(w, results) }

func (w *graphTaskWorker) listed(out string, ok bool) []call {
	if !ok {
		return nil
	}
	id := firstReadyTask(out)
	if id == 0 {
		if !strings.Contains(out, "[pending]") && !strings.Contains(out, "[in_progress]") {
			return nil // all done
		}
		if out != w.seen || w.stalled.IsZero() {
			w.seen, w.stalled = out, time.Now()
		} else if time.Since(w.stalled) > w.patience {
			return nil // nothing moves: give up
		}
		time.Sleep(w.poll)
		return w.list()
	}
	w.stalled, w.asked = time.Time{}, time.Now()
	return w.claim(id, w.name)
}

func (w *graphTaskWorker) claimed(task int) bool {
	w.log.claimed(task)
	w.checkEarly(task)
	return !w.mortal || task <= graphWidth || !w.log.die(task, w.asked)
}

func (w *graphTaskWorker) completed(task int) { w.log.completed(task) }

// checkEarly counts a claimed task one of whose prerequisites is not completed when the
// claim is acknowledged (a lower bound: one completed in between is not counted).
func (w *graphTaskWorker) checkEarly(id int) {
	for _, a := range graphAfter(id) {
		fc, err := w.backend.Read(context.Background(), &driver.ReadRequest{FilePath: fmt.Sprintf("%s/%d.json", tasksDir, a)})
		var t taskState
		if err != nil || json.Unmarshal([]byte(fc.Content), &t) != nil || t.Status != "completed" {
			w.log.mu.Lock()
			w.log.early++
			w.log.mu.Unlock()
			return
		}
	}
}

// graphTaskOrchestrator creates the tasks in one turn and sets their blockedBy in a second.
type graphTaskOrchestrator struct{ turn int }

func (o *graphTaskOrchestrator) next([]string) []call {
	o.turn++
	var calls []call
	switch o.turn {
	case 1:
		for i := 1; i <= graphSteps; i++ {
			calls = append(calls, call{toolTaskCreate, jsonObject(
				"subject", fmt.Sprintf("Step %d: migrate table billing_%02d and check its row counts", i, i),
				"description", fmt.Sprintf("Migrate billing_%02d and compare row counts before and after.", i),
				"activeForm", fmt.Sprintf("Migrating billing_%02d", i))})
		}
	case 2:
		for i := graphWidth + 1; i <= graphSteps; i++ {
			a := graphAfter(i)
			calls = append(calls, call{toolTaskUpdate, jsonObject("taskId", strconv.Itoa(i), "addBlockedBy", []string{strconv.Itoa(a[0]), strconv.Itoa(a[1])})})
		}
	}
	return calls
}

// graphPlanOrchestrator writes the plan in one turn.
type graphPlanOrchestrator struct{ done bool }

func (o *graphPlanOrchestrator) next([]string) []call {
	if o.done {
		return nil
	}
	o.done = true
	return []call{{"write_plan", jsonObject("name", graphPlanName, "content", graphContent(), "last_known_revision", 0)}}
}

// runGraphSession runs one graph session on a MemoryBackend and reports it.
func runGraphSession(ctx context.Context, c *counter, spec graphSpec) (*graphReport, error) {
	backend := plan.NewMemoryBackend()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend, BaseDir: plansDir, HoldTTL: spec.TTL, HistoryLimit: 4 * graphSteps})
	if err != nil {
		return nil, err
	}
	log := &graphLog{completions: map[int]int{}, claims: map[int]time.Time{}, errors: map[string]int{}}
	newMW := func(name string) (adk.ChatModelAgentMiddleware, error) {
		if spec.Kind == kindPlan {
			return plan.New(ctx, &plan.Config{Store: store, AgentName: name})
		}
		return plantask.New(ctx, &plantask.Config{Backend: taskBackend{backend}, BaseDir: tasksDir})
	}
	var models []*reactiveModel
	start := time.Now()

	var orch decider = &graphPlanOrchestrator{}
	if spec.Kind != kindPlan {
		orch = &graphTaskOrchestrator{}
	}
	om := newReactiveModel(orch)
	models = append(models, om)
	if err := runGraphAgent(ctx, "orchestrator", om, newMW); err != nil {
		return nil, err
	}

	var wg sync.WaitGroup
	errs := make([]error, spec.Workers)
	for i := range spec.Workers {
		name := fmt.Sprintf("worker-%d", i+1)
		mortal := i == spec.Workers-1
		var d decider = &graphPlanWorker{log: log, poll: spec.Poll, mortal: mortal}
		if spec.Kind != kindPlan {
			d = &graphTaskWorker{name: name, log: log, backend: backend, poll: spec.Poll, patience: 3 * spec.TTL, mortal: mortal}
		}
		m := newReactiveModel(d)
		models = append(models, m)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = runGraphAgent(ctx, name, m, newMW)
		}(i)
	}
	wg.Wait()
	rep := &graphReport{Wall: time.Since(start), Errors: log.errors, Recovery: -1, DeadStep: log.deadStep}
	for _, err := range errs {
		if err != nil {
			rep.Aborted++ // a tool's Go error ended the run (plantask: a task file gone)
		}
	}
	for _, m := range models {
		in, out := m.tokens(c)
		rep.Turns += m.turns
		rep.TokensIn += in
		rep.TokensOut += out
	}
	for code, n := range log.errors {
		if code != "step_blocked" && code != "illegal_transition" { // the answer that no step is left
			rep.Conflicts += n
		}
	}
	for i := 1; i <= graphSteps; i++ {
		switch n := log.completions[i]; {
		case n == 0:
			rep.Left++
		case n > 1:
			rep.Twice++
		}
	}
	if !log.recovered.IsZero() {
		rep.Recovery = log.recovered.Sub(log.deadAt)
	}
	rep.Early = log.early
	if spec.Kind == kindPlan {
		rep.Early, err = earlyStarts(ctx, store)
		if err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// earlyStarts counts, over every kept revision of the plan, the steps that became in
// progress or completed while a step they wait for was not completed.
func earlyStarts(ctx context.Context, s *plan.Store) (int, error) {
	cur, err := s.Get(ctx, graphPlanName)
	if err != nil {
		return 0, err
	}
	early := map[int]bool{}
	for rev := int64(1); rev <= cur.Revision; rev++ {
		p, err := s.GetRevision(ctx, graphPlanName, rev)
		if err != nil {
			return 0, err
		}
		steps := plan.ParseSteps(p.Content)
		for _, st := range steps {
			if st.State != plan.StepInProgress && st.State != plan.StepCompleted {
				continue
			}
			for _, a := range st.After {
				if steps[a-1].State != plan.StepCompleted {
					early[st.Number] = true
				}
			}
		}
	}
	return len(early), nil
}

// runGraphAgent runs one agent of a graph session to its final answer.
func runGraphAgent(ctx context.Context, name string, m *reactiveModel, newMW func(string) (adk.ChatModelAgentMiddleware, error)) error {
	mw, err := newMW(name)
	if err != nil {
		return err
	}
	return runAgent(ctx, name, m, mw)
}

// graphTaskLine is one line of TaskList's result: "#ID [status] subject [owner: X] [blocked by #a, #b]".
var graphTaskLine = regexp.MustCompile(`^#(\d+) \[([a-z_]+)\] .*?(?: \[owner: ([^\]]+)\])?(?: \[blocked by ([^\]]*)\])?$`)

// firstReadyTask returns the first listed task that is pending, has no owner, and whose
// blockers are all completed, or 0. TaskList names a task's blockers whatever their state
// (plantask drops one only when it is deleted), so a worker reads their states off the list.
func firstReadyTask(list string) int {
	type task struct {
		id            int
		status, owner string
		blockers      []int
	}
	var tasks []task
	status := map[int]string{}
	for _, line := range strings.Split(list, "\n") {
		m := graphTaskLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		id, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		t := task{id: id, status: m[2], owner: m[3]}
		for _, b := range strings.Split(m[4], ",") {
			if n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(b), "#")); err == nil {
				t.blockers = append(t.blockers, n)
			}
		}
		status[id] = t.status
		tasks = append(tasks, t)
	}
	for _, t := range tasks {
		if t.status != "pending" || t.owner != "" {
			continue
		}
		ready := true
		for _, b := range t.blockers {
			ready = ready && status[b] == "completed"
		}
		if ready {
			return t.id
		}
	}
	return 0
}
