package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk/middlewares/plantask"

	"github.com/einoplan/plan"
)

// opEnv is one backend kind at one size: n plans for this library and n tasks for
// plantask, each side on its own backend of that kind.
type opEnv struct {
	n         int
	ours, pt  *opened
	store     *plan.Store
	bare      *plan.Store // keeps no history, on a backend of its own (nil until addBare)
	bareOn    *opened
	tools     *toolbox // this library's tools
	ptools    *toolbox // plantask's tools
	created   []string // plan files created by a batch, removed after it
	ptCreated []string // task files created by a batch, removed after it
	seq       int      // numbers the plans the create benchmark makes
}

func newOpEnv(ctx context.Context, kind backendKind, n int) (*opEnv, error) {
	e := &opEnv{n: n}
	var err error
	if e.ours, err = kind.open(); err != nil {
		return nil, err
	}
	if e.pt, err = kind.open(); err != nil {
		e.ours.close()
		return nil, err
	}
	if err := seedPlans(e.ours, n); err != nil {
		e.close()
		return nil, err
	}
	if err := seedTasks(e.pt, n); err != nil {
		e.close()
		return nil, err
	}
	if e.store, err = plan.NewStore(&plan.StoreConfig{Backend: e.ours.backend, BaseDir: plansDir}); err != nil {
		e.close()
		return nil, err
	}
	mw, err := plan.New(ctx, &plan.Config{Backend: e.ours.backend, BaseDir: plansDir, Digest: plan.DigestConfig{Disabled: true}})
	if err != nil {
		e.close()
		return nil, err
	}
	if e.tools, err = toolboxOf(ctx, mw); err != nil {
		e.close()
		return nil, err
	}
	ptmw, err := plantask.New(ctx, &plantask.Config{Backend: taskBackend{e.pt.backend}, BaseDir: tasksDir})
	if err != nil {
		e.close()
		return nil, err
	}
	if e.ptools, err = toolboxOf(ctx, ptmw); err != nil {
		e.close()
		return nil, err
	}
	if err := e.verify(ctx); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

func (e *opEnv) close() {
	e.ours.close()
	e.pt.close()
	if e.bareOn != nil {
		e.bareOn.close()
	}
}

// addBare adds a Store that keeps no history (HistoryLimit -1), on its own backend of kind
// seeded as ours, so what the history costs is measured next to the rest.
func (e *opEnv) addBare(kind backendKind) error {
	o, err := kind.open()
	if err != nil {
		return err
	}
	e.bareOn = o
	if err := seedPlans(o, e.n); err != nil {
		return err
	}
	e.bare, err = plan.NewStore(&plan.StoreConfig{Backend: o.backend, BaseDir: plansDir, HistoryLimit: -1})
	return err
}

// verify checks that both sides see the n seeded entries.
func (e *opEnv) verify(ctx context.Context) error {
	l, err := e.store.ListPage(ctx, plan.ListOptions{})
	if err != nil {
		return err
	}
	if len(l.Plans) != e.n || len(l.Warnings) != 0 {
		return fmt.Errorf("Store.List sees %d plans and %d warnings, want %d plans", len(l.Plans), len(l.Warnings), e.n)
	}
	out, err := e.ptools.call(plantask.TaskListToolName, "{}")
	if err != nil {
		return err
	}
	var res struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		return err
	}
	got := strings.Count(res.Result, "\n") + 1
	if e.n == 0 || res.Result == "No tasks found." {
		got = 0
	}
	if got != e.n {
		return fmt.Errorf("TaskList sees %d tasks, want %d", got, e.n)
	}
	return nil
}

// opFuncs are the three implementations of one operation; after undoes what a batch
// created (nil when nothing needs undoing).
type opFuncs struct {
	name                  string
	store, tool, plantask func(i int) error
	afterOurs, afterTask  func() error
	bare                  func(i int) error // the Store without history (addBare), where timed
}

func (e *opEnv) ops(ctx context.Context) []opFuncs {
	_, _, body := entryText(7)
	subject, description, _ := entryText(7)
	createArgs := jsonObject("subject", subject, "description", description, "activeForm", "Working on it")
	zero := int64(0)
	statuses := [2]string{"in-progress", "draft"}
	taskStatuses := [2]string{"in_progress", "pending"}
	// Names and arguments are made before the clock runs, so that no side times the harness.
	names := make([]string, e.n)
	readArgs, taskGetArgs := make([]string, e.n), make([]string, e.n)
	var statusArgs, taskUpdateArgs [2][]string
	for s := range statuses {
		statusArgs[s], taskUpdateArgs[s] = make([]string, e.n), make([]string, e.n)
	}
	for i := range e.n {
		names[i] = planName(i)
		readArgs[i] = jsonObject("name", names[i])
		taskGetArgs[i] = jsonObject("taskId", fmt.Sprint(i+1))
		for s := range statuses {
			statusArgs[s][i] = jsonObject("name", names[i], "status", statuses[s])
			taskUpdateArgs[s][i] = jsonObject("taskId", fmt.Sprint(i+1), "status", taskStatuses[s])
		}
	}
	return []opFuncs{
		{
			name: "create",
			store: func(int) error {
				name := e.newName()
				_, err := e.store.Put(ctx, plan.Update{Name: name, Content: &body, IfRevision: &zero})
				return err
			},
			tool: func(int) error {
				_, err := e.tools.call(plan.ToolWritePlan, jsonObject("name", e.newName(), "content", body, "last_known_revision", 0))
				return err
			},
			plantask: func(int) error {
				out, err := e.ptools.call(plantask.TaskCreateToolName, createArgs)
				if err != nil {
					return err
				}
				var id int
				if _, err := fmt.Sscanf(out[strings.IndexByte(out, '#'):], "#%d", &id); err != nil {
					return fmt.Errorf("TaskCreate result %s: %w", out, err)
				}
				e.ptCreated = append(e.ptCreated, fmt.Sprintf("%s/%d.json", tasksDir, id))
				return nil
			},
			afterOurs: func() error { return e.removeCreated(&e.created, e.ours) },
			afterTask: func() error { return e.removeCreated(&e.ptCreated, e.pt) },
		},
		{
			name: "read",
			store: func(i int) error {
				_, err := e.store.Get(ctx, names[i%e.n])
				return err
			},
			tool: func(i int) error {
				_, err := e.tools.call(plan.ToolReadPlan, readArgs[i%e.n])
				return err
			},
			plantask: func(i int) error {
				_, err := e.ptools.call(plantask.TaskGetToolName, taskGetArgs[i%e.n])
				return err
			},
		},
		{
			name: "status update",
			store: func(i int) error {
				_, err := e.store.SetStatus(ctx, names[i%e.n], statuses[(i/e.n)%2], nil)
				return err
			},
			tool: func(i int) error {
				_, err := e.tools.call(plan.ToolSetPlanStatus, statusArgs[(i/e.n)%2][i%e.n])
				return err
			},
			bare: func(i int) error {
				_, err := e.bare.SetStatus(ctx, names[i%e.n], statuses[(i/e.n)%2], nil)
				return err
			},
			plantask: func(i int) error {
				_, err := e.ptools.call(plantask.TaskUpdateToolName, taskUpdateArgs[(i/e.n)%2][i%e.n])
				return err
			},
		},
	}
}

func (e *opEnv) listOp(ctx context.Context) opFuncs {
	return opFuncs{
		name: "list",
		store: func(int) error {
			l, err := e.store.ListPage(ctx, plan.ListOptions{})
			if err == nil && len(l.Plans) != e.n {
				err = fmt.Errorf("Store.List: %d plans, want %d", len(l.Plans), e.n)
			}
			return err
		},
		tool: func(int) error {
			_, err := e.tools.call(plan.ToolListPlans, "{}")
			return err
		},
		plantask: func(int) error {
			_, err := e.ptools.call(plantask.TaskListToolName, "{}")
			return err
		},
	}
}

func (e *opEnv) newName() string {
	e.seq++
	name := fmt.Sprintf("new-%06d", e.seq)
	e.created = append(e.created, plansDir+"/"+name+".md")
	return name
}

func (e *opEnv) removeCreated(paths *[]string, o *opened) error {
	for _, p := range *paths {
		if err := o.backend.Delete(context.Background(), &driver.DeleteRequest{FilePath: p}); err != nil {
			return err
		}
	}
	*paths = (*paths)[:0]
	return nil
}

// opResult is the median time per call of one operation at one size.
type opResult struct {
	kind            string
	n               int
	op              string
	store, tool, pt float64
}

func (e *opEnv) measure(tm timing, kind string, f opFuncs) (opResult, error) {
	ns, err := tm.measure(contender{f.store, f.afterOurs}, contender{f.tool, f.afterOurs}, contender{f.plantask, f.afterTask})
	if err != nil {
		return opResult{}, fmt.Errorf("%s %s at %d: %w", kind, f.name, e.n, err)
	}
	return opResult{kind: kind, n: e.n, op: f.name, store: ns[0], tool: ns[1], pt: ns[2]}, nil
}

// operationTables is table 3: create, read, status update and list on each backend kind
// and size, this library against plantask.
func operationTables(ctx context.Context, cfg config) ([]*table, error) {
	var tables []*table
	for ki, kind := range cfg.kinds {
		var results []opResult
		var envs []*opEnv
		closeAll := func() {
			for _, e := range envs {
				e.close()
			}
		}
		for _, n := range cfg.opSizes {
			e, err := newOpEnv(ctx, kind, n)
			if err != nil {
				closeAll()
				return nil, fmt.Errorf("%s at %d: %w", kind.name, n, err)
			}
			envs = append(envs, e)
			for _, f := range e.ops(ctx) {
				r, err := e.measure(cfg.opTiming, kind.name, f)
				if err != nil {
					closeAll()
					return nil, err
				}
				results = append(results, r)
			}
		}
		lastWrite := time.Now()
		// Lists are timed last, on plans nothing has written for longer than the racy
		// window, so the Store's cache holds them all ("unchanged plans").
		waited := false
		if kind.racy && cfg.waitRacy {
			sleepUntil(lastWrite.Add(racyWait))
			waited = true
		}
		for _, e := range envs {
			if err := e.verify(ctx); err != nil { // also fills the cache
				closeAll()
				return nil, err
			}
			r, err := e.measure(cfg.opTiming, kind.name, e.listOp(ctx))
			if err != nil {
				closeAll()
				return nil, err
			}
			results = append(results, r)
		}
		closeAll()
		tables = append(tables, opsTable(fmt.Sprintf("3%c. Operations on %s", 'a'+ki, kind.name), kind, results, cfg, waited))
	}
	return tables, nil
}

func opsTable(title string, kind backendKind, results []opResult, cfg config, waited bool) *table {
	t := newTable(title, "Entries", "Operation", "plan Store", "plan tool", "plantask tool", "plantask ÷ Store", "plantask ÷ tool")
	var slower []string
	var listAt1000 string
	for _, n := range cfg.opSizes {
		for _, r := range results {
			if r.n != n {
				continue
			}
			t.add(fmtInt(n), r.op, fmtNs(r.store), fmtNs(r.tool), fmtNs(r.pt), fmtRatio(r.pt/r.store), fmtRatio(r.pt/r.tool))
			if r.store > r.pt {
				slower = append(slower, fmt.Sprintf("%s at %s via Store (%s)", r.op, fmtInt(n), fmtRatio(r.pt/r.store)))
			}
			if r.tool > r.pt {
				slower = append(slower, fmt.Sprintf("%s at %s via tool (%s)", r.op, fmtInt(n), fmtRatio(r.pt/r.tool)))
			}
			if r.op == "list" && n == 1000 {
				listAt1000 = fmt.Sprintf("%s via Store, %s via list_plans", fmtRatio(r.pt/r.store), fmtRatio(r.pt/r.tool))
			}
		}
	}
	t.note("Median time per call over %d batches of calls lasting about %v each, after a warm-up batch; the three columns' batches are interleaved so they share the machine's load alike. Ratios above 1× mean plan is faster.", cfg.opTiming.reps, cfg.opTiming.target)
	t.note("Each side has its own %s seeded with the same text per entry: a plan of a title, a line of description and 5 checklist items; a plantask task with that subject and description. plantask runs through its tools' InvokableRun with the JSON it expects, on an adapter that only converts its DeleteRequest type.", kind.name)
	t.note("create: a new entry each call (write_plan with last_known_revision 0 / Store.Put create-only; TaskCreate), removed after each batch so the count stays at the size. read: Store.Get / read_plan; TaskGet. status update: Store.SetStatus / set_plan_status; TaskUpdate between pending and in_progress (its cheapest status change: completing a task makes TaskUpdate read every task).")
	switch {
	case kind.racy && waited:
		t.note("list: Store.List / list_plans; TaskList. Timed on unchanged plans: the Store caches a summary keyed on LsInfo Size+ModifiedAt, but not for files modified within its 2 s racy window, so lists are timed after waiting %v since the last write, with one warm-up list filling the cache.", racyWait)
	case kind.racy:
		t.note("list: Store.List / list_plans; TaskList. The racy window was NOT waited out (test mode): plans modified within 2 s are re-read on every list.")
	default:
		t.note("list: Store.List / list_plans; TaskList. MemoryBackend stamps strictly increasing modification times, so the Store caches a summary as soon as it reads it; the lists are timed with the cache full (unchanged plans).")
	}
	if kind.racy {
		t.note("Every LocalBackend write syncs the file and its folder (about 1-5 ms each on a virtual disk), and plantask's TaskCreate writes twice; create and status update there measure the disk more than either library, and their ratios can move by 2× between runs on a busy machine.")
	}
	if len(slower) == 0 {
		t.note("Goal: plan no slower on any operation: met.")
	} else {
		t.note("Goal: plan no slower on any operation: missed for %s.", strings.Join(slower, "; "))
	}
	if listAt1000 != "" {
		t.note("Goal: list of 1,000 unchanged plans at least 5× faster than TaskList: %s.", listAt1000)
	}
	return t
}
