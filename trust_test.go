package plan_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/einoplan/plan/driver/drivertest"
	"github.com/einoplan/plan/internal/childtest"

	"github.com/cloudwego/eino/adk/middlewares/plantask"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// A backend written for Eino's plantask is a plan.Backend as it is.
var _ plan.Backend = plantask.Backend(nil)

// logged is a logging wrapper that says what it wraps.
type logged struct {
	plan.Backend
	mu    sync.Mutex
	calls int
}

func (l *logged) Write(ctx context.Context, req *plan.WriteRequest) error {
	l.mu.Lock()
	l.calls++
	l.mu.Unlock()
	return l.Backend.Write(ctx, req)
}

func (l *logged) Unwrap() plan.Backend { return l.Backend }

// embedded hides every capability of what it wraps: it only embeds the interface.
type embedded struct{ plan.Backend }

// hooked holds a map, so a struct value holding it is not comparable.
type hooked struct {
	plan.Backend
	hooks map[string]func()
}

type valueWrap struct{ hooked }

// counterWorkers runs writers that each make n guarded increments of one counter plan, every
// writer on its own Store, and checks that none was lost.
func counterWorkers(t *testing.T, stores []*plan.Store, n int) {
	t.Helper()
	ctx := context.Background()
	_, err := stores[0].Put(ctx, plan.Update{Name: "counter", Content: ptrTo("0"), IfRevision: ptrTo[int64](0)})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, len(stores))
	for _, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- drivertest.GuardedIncrements(ctx, s, "counter", n)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assertCounter(t, stores[0], len(stores)*n)
}

func assertCounter(t *testing.T, s *plan.Store, want int) {
	t.Helper()
	p, err := s.Get(context.Background(), "counter")
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(want), p.Content, "%d increments made, none lost", want)
	assert.EqualValues(t, want+1, p.Revision)
}

func storeOn(t testing.TB, b plan.Backend, dir string) *plan.Store {
	t.Helper()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: dir})
	require.NoError(t, err)
	return s
}

func TestTrustPointerWrappersShareStorage(t *testing.T) {
	mem := plan.NewMemoryBackend()
	// A wrapper that hides the driver.Swapper too: only identity through Unwrap protects it.
	hidden := func() plan.Backend { return &logged{Backend: embedded{mem}} }
	counterWorkers(t, []*plan.Store{storeOn(t, hidden(), ""), storeOn(t, hidden(), "")}, 1000)
}

func TestTrustBaseDirSpellingsAreOneFolder(t *testing.T) {
	mem := &logged{Backend: embedded{plan.NewMemoryBackend()}}
	a, b, c := storeOn(t, mem, "plans"), storeOn(t, mem, "/plans"), storeOn(t, mem, "/plans/")
	assert.Equal(t, "/plans", a.BaseDir())
	assert.Equal(t, "/plans", c.BaseDir())
	counterWorkers(t, []*plan.Store{a, b, c}, 400)
}

func TestTrustUnhashableBackendValueDoesNotPanic(t *testing.T) {
	b := valueWrap{hooked{Backend: plan.NewMemoryBackend(), hooks: map[string]func(){"x": func() {}}}}
	require.NotPanics(t, func() {
		s := storeOn(t, b, "")
		_, err := s.Put(context.Background(), plan.Update{Name: "a", Content: ptrTo("- [ ] x\n")})
		require.NoError(t, err)
		_, err = plan.New(context.Background(), &plan.Config{Backend: b})
		require.NoError(t, err)
	})
	// Sharing is then explicit: one Store for every middleware.
	s := storeOn(t, b, "")
	_, err := plan.New(context.Background(), &plan.Config{Store: s})
	require.NoError(t, err)
	_, err = plan.New(context.Background(), &plan.Config{Store: s, Backend: b})
	require.ErrorContains(t, err, "leave Backend")
}

// trustChildEnv names the root TestTrustChildWriter, run as a child process, writes on.
const trustChildEnv = "PLAN_TRUST_CHILD"

// TestTrustChildWriter is the child side of TestTrustEmbeddingWrapperAroundLocal: guarded
// increments through an embedded-wrapper LocalBackend.
func TestTrustChildWriter(t *testing.T) {
	childtest.SkipUnlessChild(t)
	root := os.Getenv(trustChildEnv)
	s := storeOn(t, embedded{newLocal(t, root)}, "")
	require.NoError(t, drivertest.GuardedIncrements(context.Background(), s, "counter", 100))
}

func TestTrustEmbeddingWrapperAroundLocal(t *testing.T) {
	t.Run("one process", func(t *testing.T) {
		root := t.TempDir()
		counterWorkers(t, []*plan.Store{storeOn(t, newLocal(t, root), ""), storeOn(t, embedded{newLocal(t, root)}, "")}, 100)
	})
	t.Run("two processes", func(t *testing.T) {
		root := t.TempDir()
		s := storeOn(t, newLocal(t, root), "")
		_, err := s.Put(context.Background(), plan.Update{Name: "counter", Content: ptrTo("0")})
		require.NoError(t, err)
		child := childtest.Start(t, "TestTrustChildWriter", map[string]string{trustChildEnv: root})
		out := make(chan error, 1)
		go func() { out <- child.Wait() }()
		require.NoError(t, drivertest.GuardedIncrements(context.Background(), s, "counter", 100))
		require.NoError(t, <-out)
		assertCounter(t, s, 200)
	})
}

func TestTrustWorkspaceIsThePlanStorage(t *testing.T) {
	ctx := context.Background()
	lb := newLocal(t, t.TempDir())
	mw, err := plan.New(ctx, &plan.Config{Backend: lb, Workspace: lb})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	call := func(name, args string) string {
		out, err := tools[name].InvokableRun(ctx, args)
		require.NoError(t, err)
		return out
	}
	assert.Contains(t, call("write_plan", `{"name":"victim","content":"- [ ] a\n"}`), `"revision":1`)
	for i := 0; i < 4; i++ {
		call("update_plan_step", `{"name":"victim","step":1,"status":"in_progress"}`)
		call("update_plan_step", `{"name":"victim","step":1,"status":"pending"}`)
	}
	for _, path := range []string{"/plans/victim.md", "/plans/.deleted/victim", "/plans/.plan.lock", "plans/victim.md", "/plans", "/plans/sub/x.md", "//plans/./victim.md"} {
		out := call("export_plan_to_file", fmt.Sprintf(`{"name":"victim","path":%q}`, path))
		assert.Contains(t, out, `"invalid_argument"`, path)
		out = call("update_plan_from_file", fmt.Sprintf(`{"name":"victim","path":%q}`, path))
		assert.Contains(t, out, `"invalid_argument"`, path)
	}
	assert.Contains(t, call("export_plan_to_file", `{"name":"victim","path":"work/v.md"}`), "absolute")
	assert.Contains(t, call("export_plan_to_file", `{"name":"victim","file_path":"/work/v.md"}`), `"bytes"`, "file_path is accepted for path")
	assert.Contains(t, call("read_plan", `{"name":"victim"}`), `"revision":`)
	p, err := plan.NewStore(&plan.StoreConfig{Backend: lb})
	require.NoError(t, err)
	got, err := p.Get(ctx, "victim")
	require.NoError(t, err)
	rev := got.Revision
	call("delete_plan", `{"name":"victim"}`)
	assert.Contains(t, call("write_plan", `{"name":"victim","content":"- [ ] b\n"}`), fmt.Sprintf(`"revision":%d`, rev+1), "revisions go on after delete")
}

// readFileWorkspace reads with os.ReadFile, which blocks on a named pipe: it offers no
// bounded read and ignores the context.
type readFileWorkspace struct{ dir string }

func (w readFileWorkspace) Read(_ context.Context, req *plan.ReadRequest) (*plan.FileContent, error) {
	data, err := os.ReadFile(filepath.Join(w.dir, req.FilePath))
	if err != nil {
		return nil, err
	}
	return &plan.FileContent{Content: string(data)}, nil
}

func (w readFileWorkspace) Write(_ context.Context, req *plan.WriteRequest) error {
	return os.WriteFile(filepath.Join(w.dir, req.FilePath), []byte(req.Content), 0o600)
}

func TestTrustWorkspaceReadHonoursDeadline(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o600))
	t.Cleanup(func() { // unblock the abandoned read
		if f, err := os.OpenFile(filepath.Join(dir, "pipe.md"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	mw, err := plan.New(context.Background(), &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: readFileWorkspace{dir}})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, context.Background(), mw)
	ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := tools["update_plan_from_file"].InvokableRun(ctx, `{"name":"p","path":"/pipe.md"}`)
	require.NoError(t, err)
	assert.Contains(t, out, `"canceled"`)
	assert.Less(t, time.Since(start), 600*time.Millisecond, "returns within 100 ms of the deadline")
}
