package plan_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// The mixed-race tests run workers (agents, each with its own middleware) against one
// plans folder at once: as goroutines on a MemoryBackend and on a LocalBackend, and as
// separate processes on a LocalBackend (process_test.go). Every tool call and its
// result is recorded; the checks then look for any outcome that no serial order of the
// accepted calls could have produced.

// raceDuration is how long the workers of one run keep calling tools.
const raceDuration = 800 * time.Millisecond

// raceOp is one recorded tool call.
type raceOp struct {
	Worker string  `json:"worker"`
	Tool   string  `json:"tool"`
	Args   string  `json:"args"`
	Result string  `json:"result"`
	File   *string `json:"file,omitempty"` // export_plan_to_file: the file read back at once
}

// raceWorker makes the tool calls of one role.
type raceWorker struct {
	name  string
	tools map[string]tool.InvokableTool
	ws    driver.Workspace
	until time.Time
	calls int
	rng   *rand.Rand
	emit  func(raceOp)
}

// minRaceCalls is how many calls each worker makes at least, past until when the machine is
// slow (by at most raceGrace): the scenarios' checks need calls that overlap, and a loaded
// machine starting race-built processes would otherwise leave a worker a handful.
const (
	minRaceCalls = 50
	raceGrace    = 30 * time.Second
)

func (w *raceWorker) more() bool {
	now := time.Now()
	return now.Before(w.until) || w.calls < minRaceCalls && now.Before(w.until.Add(raceGrace))
}

func (w *raceWorker) call(ctx context.Context, name, args string) (raceResult, error) {
	w.calls++
	out, err := w.tools[name].InvokableRun(ctx, args)
	if err != nil {
		return raceResult{}, fmt.Errorf("%s %s returned a Go error: %w", name, args, err)
	}
	op := raceOp{Worker: w.name, Tool: name, Args: args, Result: out}
	if name == "export_plan_to_file" && !strings.Contains(out, `"error"`) {
		fc, err := w.ws.Read(ctx, &driver.ReadRequest{FilePath: w.exportPath()})
		if err != nil {
			return raceResult{}, fmt.Errorf("read back the export: %w", err)
		}
		op.File = &fc.Content
	}
	w.emit(op)
	var r raceResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		return r, fmt.Errorf("%s %s: result %q: %w", name, args, out, err)
	}
	return r, nil
}

func (w *raceWorker) exportPath() string { return "/" + w.name + "/p.md" }

type raceResult struct {
	Name     string         `json:"name"`
	Deleted  string         `json:"deleted"`
	Revision int64          `json:"revision"`
	Title    string         `json:"title"`
	Status   string         `json:"status"`
	Bytes    int            `json:"bytes"`
	Content  *string        `json:"content"`
	Plans    []plan.Summary `json:"plans"`
	Warnings []api.Warning  `json:"warnings"`
	Error    *struct {
		Code            string `json:"code"`
		CurrentRevision int64  `json:"current_revision"`
	} `json:"error"`
}

func (r raceResult) code() string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

type raceArgs struct {
	Name     string `json:"name"`
	Content  string `json:"content"`
	Title    string `json:"title"`
	Status   string `json:"status"`
	Revision *int64 `json:"last_known_revision"`
}

func argsJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// raceRoles are what workers do until their time is up.
var raceRoles = map[string]func(ctx context.Context, w *raceWorker) error{
	// guarded-writer writes plan p guarded with the revision it just read, or creates it.
	"guarded-writer": func(ctx context.Context, w *raceWorker) error {
		for i := 0; w.more(); i++ {
			r, err := w.call(ctx, "read_plan", `{"name":"p"}`)
			if err != nil {
				return err
			}
			rev := r.Revision
			if r.code() != "" {
				rev = 0
			}
			_, err = w.call(ctx, "write_plan", argsJSON(map[string]any{"name": "p", "content": fmt.Sprintf("%s wrote %d\n", w.name, i), "last_known_revision": rev}))
			if err != nil {
				return err
			}
		}
		return nil
	},
	// deleter deletes plan p guarded with the revision it just read.
	"deleter": func(ctx context.Context, w *raceWorker) error {
		for w.more() {
			r, err := w.call(ctx, "read_plan", `{"name":"p"}`)
			if err != nil {
				return err
			}
			if r.code() == "" {
				if _, err := w.call(ctx, "delete_plan", argsJSON(map[string]any{"name": "p", "last_known_revision": r.Revision})); err != nil {
					return err
				}
			}
			time.Sleep(time.Duration(w.rng.IntN(3)) * time.Millisecond)
		}
		return nil
	},
	// content-writer replaces the body of p, unguarded, naming no other field.
	"content-writer": func(ctx context.Context, w *raceWorker) error {
		for i := 0; w.more(); i++ {
			if _, err := w.call(ctx, "write_plan", argsJSON(map[string]any{"name": "p", "content": fmt.Sprintf("# %s %d\n- [ ] step\n", w.name, i)})); err != nil {
				return err
			}
		}
		return nil
	},
	// status-changer sets the status of p, unguarded.
	"status-changer": func(ctx context.Context, w *raceWorker) error {
		for i := 0; w.more(); i++ {
			if _, err := w.call(ctx, "set_plan_status", argsJSON(map[string]any{"name": "p", "status": fmt.Sprintf("%s %d", w.name, i)})); err != nil {
				return err
			}
		}
		return nil
	},
	// exporter exports p to its own workspace file and reads the file back.
	"exporter": func(ctx context.Context, w *raceWorker) error {
		for w.more() {
			if _, err := w.call(ctx, "export_plan_to_file", argsJSON(map[string]any{"name": "p", "path": w.exportPath()})); err != nil {
				return err
			}
		}
		return nil
	},
	// list-writer writes and deletes q0..q2; every write sets title, status and body
	// from one tag, so a listed entry mixing two writes is detectable.
	"list-writer": func(ctx context.Context, w *raceWorker) error {
		for i := 0; w.more(); i++ {
			name := fmt.Sprintf("q%d", i%3)
			var err error
			if i%5 == 4 {
				_, err = w.call(ctx, "delete_plan", argsJSON(map[string]any{"name": name}))
			} else {
				tag := fmt.Sprintf("%s/%d", w.name, i)
				_, err = w.call(ctx, "write_plan", argsJSON(map[string]any{"name": name, "title": "T " + tag, "status": "S " + tag, "content": listBody(tag)}))
			}
			if err != nil {
				return err
			}
		}
		return nil
	},
	"lister": func(ctx context.Context, w *raceWorker) error {
		for w.more() {
			if _, err := w.call(ctx, "list_plans", `{}`); err != nil {
				return err
			}
		}
		return nil
	},
}

// listSteps is the number of steps and of completed steps the body of tag has.
func listSteps(tag string) (total, completed int) {
	i, _ := strconv.Atoi(tag[strings.LastIndexByte(tag, '/')+1:])
	total = 1 + i%4
	return total, i % (total + 1)
}

func listBody(tag string) string {
	total, completed := listSteps(tag)
	return "# " + tag + "\n" + strings.Repeat("- [x] done\n", completed) + strings.Repeat("- [ ] open\n", total-completed)
}

// raceScenario is one mix of roles and what must hold afterwards.
type raceScenario struct {
	roles []string
	setup func(t *testing.T, ctx context.Context, s *plan.Store)
	check func(t *testing.T, ctx context.Context, ops []raceOp, s *plan.Store)
}

// raceProcesses runs a scenario with one process per worker on a LocalBackend; nil where
// processes cannot share a lock.
var raceProcesses func(t *testing.T, sc raceScenario)

// workerTools returns the tools of a fresh middleware on backend and ws.
func workerTools(t *testing.T, backend plan.Backend, ws driver.Workspace, name string) map[string]tool.InvokableTool {
	mw, err := plan.New(context.Background(), &plan.Config{Backend: backend, Workspace: ws, AgentName: name})
	require.NoError(t, err)
	_, _, tools := beforeAgentTools(t, context.Background(), mw)
	return tools
}

// runRaceGoroutines runs every role of sc as a goroutine with its own middleware.
func runRaceGoroutines(t *testing.T, sc raceScenario, backend plan.Backend, ws driver.Workspace) {
	ctx := context.Background()
	store := storeOn(t, backend, "")
	if sc.setup != nil {
		sc.setup(t, ctx, store)
	}
	var mu sync.Mutex
	var ops []raceOp
	workers := make([]*raceWorker, len(sc.roles))
	until := time.Now().Add(raceDuration)
	for i, role := range sc.roles {
		name := fmt.Sprintf("%s-%d", role, i)
		workers[i] = &raceWorker{name: name, tools: workerTools(t, backend, ws, name), ws: ws, until: until,
			rng: rand.New(rand.NewPCG(uint64(i), 7)), emit: func(op raceOp) { mu.Lock(); ops = append(ops, op); mu.Unlock() }}
	}
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for i, w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = raceRoles[sc.roles[i]](ctx, w) }()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	sc.check(t, ctx, ops, store)
}

// runRace runs sc on goroutines over a MemoryBackend and a LocalBackend, then in processes.
func runRace(t *testing.T, sc raceScenario) {
	t.Run("memory", func(t *testing.T) {
		runRaceGoroutines(t, sc, plan.NewMemoryBackend(), plan.NewMemoryBackend())
	})
	t.Run("local", func(t *testing.T) {
		runRaceGoroutines(t, sc, newLocal(t, t.TempDir()), newLocal(t, t.TempDir()))
	})
	t.Run("processes", func(t *testing.T) {
		if raceProcesses == nil {
			t.Skip("processes share locks only where LocalBackend is a driver.Locker")
		}
		if testing.Short() {
			t.Skip("spawns processes")
		}
		raceProcesses(t, sc)
	})
}

// accepted is an op whose result is not an error, with its decoded arguments and result.
type accepted struct {
	op   raceOp
	args raceArgs
	res  raceResult
}

// classify decodes every op, fails on codes outside allowed, and returns the accepted
// ops by tool.
func classify(t *testing.T, ops []raceOp, allowed ...string) map[string][]accepted {
	t.Helper()
	out := map[string][]accepted{}
	counts := map[string]int{}
	for _, op := range ops {
		var a accepted
		a.op = op
		require.NoError(t, json.Unmarshal([]byte(op.Args), &a.args), op.Args)
		require.NoError(t, json.Unmarshal([]byte(op.Result), &a.res), op.Result)
		counts[op.Tool+" "+a.res.code()]++
		if code := a.res.code(); code != "" {
			assert.Contains(t, allowed, code, "%s %s → %s", op.Tool, op.Args, op.Result)
			continue
		}
		out[op.Tool] = append(out[op.Tool], a)
	}
	keys := make([]string, 0, len(counts))
	for k, n := range counts {
		keys = append(keys, fmt.Sprintf("%s:%d", strings.TrimSpace(k), n))
	}
	sort.Strings(keys)
	t.Logf("%d calls: %s", len(ops), strings.Join(keys, " "))
	return out
}

func putPlan(t *testing.T, ctx context.Context, s *plan.Store, name, content string) {
	t.Helper()
	_, err := s.Put(ctx, plan.Update{Name: name, Content: &content})
	require.NoError(t, err)
}

// TestRaceGuardedWriteVsDelete: guarded writers and guarded deleters on one plan. A revision
// is either written over or deleted, never both; no revision is produced twice; a create
// after a delete continues the revisions; every read shows a produced revision whole; the
// stored plan is what the last accepted change left.
func TestRaceGuardedWriteVsDelete(t *testing.T) {
	runRace(t, raceScenario{
		roles: []string{"guarded-writer", "guarded-writer", "deleter", "deleter"},
		setup: func(t *testing.T, ctx context.Context, s *plan.Store) { putPlan(t, ctx, s, "p", "initial\n") },
		check: func(t *testing.T, ctx context.Context, ops []raceOp, s *plan.Store) {
			acc := classify(t, ops, "revision_conflict", "not_found")
			content := map[int64]string{1: "initial\n"}
			deleted := map[int64]bool{}
			overwritten := map[int64]string{}
			for _, w := range acc["write_plan"] {
				rev, guard := w.res.Revision, *w.args.Revision
				_, dup := content[rev]
				require.False(t, dup, "revision %d produced twice", rev)
				content[rev] = w.args.Content
				if guard > 0 {
					assert.Equal(t, guard+1, rev, "write guarded on %d", guard)
					overwritten[guard] = w.op.Worker
				}
			}
			for _, d := range acc["delete_plan"] {
				rev := d.res.Revision
				require.False(t, deleted[rev], "revision %d deleted twice", rev)
				deleted[rev] = true
				assert.Equal(t, *d.args.Revision, rev)
				_, ok := content[rev]
				assert.True(t, ok, "deleted revision %d was never produced", rev)
				assert.Empty(t, overwritten[rev], "revision %d was both deleted and written over by %s", rev, overwritten[rev])
			}
			for _, w := range acc["write_plan"] {
				if *w.args.Revision == 0 {
					assert.True(t, deleted[w.res.Revision-1], "create at revision %d does not follow the deletion of %d", w.res.Revision, w.res.Revision-1)
				}
			}
			for _, r := range acc["read_plan"] {
				want, ok := content[r.res.Revision]
				if assert.True(t, ok, "read revision %d that was never produced", r.res.Revision) {
					assert.Equal(t, want, *r.res.Content, "revision %d", r.res.Revision)
				}
			}
			assert.NotEmpty(t, acc["delete_plan"])
			assert.NotEmpty(t, overwritten)

			last := int64(0)
			for rev := range content {
				last = max(last, rev)
			}
			p, err := s.Get(ctx, "p")
			if deleted[last] {
				assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err), "the last revision %d was deleted", last)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, last, p.Revision)
			assert.Equal(t, content[last], p.Content)
		},
	})
}

// TestRaceStatusVsWrite: unguarded body writes and status changes on one plan all succeed,
// each with its own revision, and replaying them in revision order explains every result
// and the stored plan: no write brought back an old status, no status change an old body.
func TestRaceStatusVsWrite(t *testing.T) {
	runRace(t, raceScenario{
		roles: []string{"content-writer", "content-writer", "status-changer", "status-changer"},
		setup: func(t *testing.T, ctx context.Context, s *plan.Store) { putPlan(t, ctx, s, "p", "# p\n") },
		check: func(t *testing.T, ctx context.Context, ops []raceOp, s *plan.Store) {
			acc := classify(t, ops)
			byRev := map[int64]accepted{}
			for _, list := range acc {
				for _, a := range list {
					_, dup := byRev[a.res.Revision]
					require.False(t, dup, "revision %d produced twice", a.res.Revision)
					byRev[a.res.Revision] = a
				}
			}
			require.Len(t, byRev, len(ops), "every call is accepted")
			assert.NotEmpty(t, acc["write_plan"])
			assert.NotEmpty(t, acc["set_plan_status"])
			body, status := "# p\n", "draft"
			for rev := int64(2); rev < int64(len(ops))+2; rev++ {
				a, ok := byRev[rev]
				require.True(t, ok, "revision %d is missing", rev)
				switch a.op.Tool {
				case "write_plan":
					body = a.args.Content
					assert.Equal(t, status, a.res.Status, "write at revision %d kept the status", rev)
				case "set_plan_status":
					status = a.args.Status
					assert.Equal(t, status, a.res.Status)
				}
			}
			p, err := s.Get(ctx, "p")
			require.NoError(t, err)
			assert.EqualValues(t, len(ops)+1, p.Revision)
			assert.Equal(t, body, p.Content)
			assert.Equal(t, status, p.Status)
		},
	})
}

// TestRaceExportVsWrite: an export taken while writers rewrite the plan holds exactly the
// body of the revision its result reports.
func TestRaceExportVsWrite(t *testing.T) {
	runRace(t, raceScenario{
		roles: []string{"content-writer", "content-writer", "exporter", "exporter"},
		setup: func(t *testing.T, ctx context.Context, s *plan.Store) { putPlan(t, ctx, s, "p", "# p\n") },
		check: func(t *testing.T, ctx context.Context, ops []raceOp, s *plan.Store) {
			acc := classify(t, ops)
			content := map[int64]string{1: "# p\n"}
			for _, w := range acc["write_plan"] {
				content[w.res.Revision] = w.args.Content
			}
			require.Len(t, content, len(acc["write_plan"])+1, "no revision produced twice")
			require.NotEmpty(t, acc["export_plan_to_file"])
			revs := map[int64]bool{}
			for _, e := range acc["export_plan_to_file"] {
				want, ok := content[e.res.Revision]
				require.True(t, ok, "export reports revision %d, never produced", e.res.Revision)
				require.NotNil(t, e.op.File)
				assert.Equal(t, want, *e.op.File, "export of revision %d", e.res.Revision)
				assert.Equal(t, len(want), e.res.Bytes)
				revs[e.res.Revision] = true
			}
			t.Logf("exports saw %d revisions", len(revs))
		},
	})
}

// TestRaceListDuringWrites: list_plans while plans are written and deleted never warns and
// never shows an entry mixing two writes: title, status, progress and revision all come
// from the one write that produced that revision.
func TestRaceListDuringWrites(t *testing.T) {
	runRace(t, raceScenario{
		roles: []string{"list-writer", "list-writer", "lister", "lister"},
		check: func(t *testing.T, ctx context.Context, ops []raceOp, s *plan.Store) {
			acc := classify(t, ops, "not_found")
			type key struct {
				name string
				rev  int64
			}
			tags := map[key]string{}
			for _, w := range acc["write_plan"] {
				k := key{w.args.Name, w.res.Revision}
				_, dup := tags[k]
				require.False(t, dup, "revision %d of %s produced twice", k.rev, k.name)
				tags[k] = strings.TrimPrefix(w.args.Title, "T ")
			}
			entries := 0
			for _, l := range acc["list_plans"] {
				assert.Empty(t, l.res.Warnings, l.op.Result)
				for _, e := range l.res.Plans {
					entries++
					tag, ok := tags[key{e.Name, e.Revision}]
					if !assert.True(t, ok, "listed revision %d of %s was never produced", e.Revision, e.Name) {
						continue
					}
					total, completed := listSteps(tag)
					assert.Equal(t, "T "+tag, e.Title, "%s at %d", e.Name, e.Revision)
					assert.Equal(t, "S "+tag, e.Status, "%s at %d", e.Name, e.Revision)
					assert.Equal(t, total, e.Progress.Total, "%s at %d", e.Name, e.Revision)
					assert.Equal(t, completed, e.Progress.Completed, "%s at %d", e.Name, e.Revision)
				}
			}
			require.NotEmpty(t, acc["list_plans"])
			t.Logf("%d listed entries checked", entries)
			listing, err := s.ListPage(ctx, plan.ListOptions{})
			require.NoError(t, err)
			assert.Empty(t, listing.Warnings)
		},
	})
}
