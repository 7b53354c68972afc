package plan_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/internal/childtest"
)

// tenant embeds a Backend and overrides all four methods to keep each tenant under its
// own prefix: the ordinary Go way to decorate an interface.
type tenant struct {
	plan.Backend
	prefix string
}

func (t tenant) LsInfo(ctx context.Context, r *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return t.Backend.LsInfo(ctx, &driver.LsInfoRequest{Path: t.prefix + r.Path})
}

func (t tenant) Read(ctx context.Context, r *driver.ReadRequest) (*driver.FileContent, error) {
	c := *r
	c.FilePath = t.prefix + r.FilePath
	return t.Backend.Read(ctx, &c)
}

func (t tenant) Write(ctx context.Context, r *driver.WriteRequest) error {
	return t.Backend.Write(ctx, &driver.WriteRequest{FilePath: t.prefix + r.FilePath, Content: r.Content})
}

func (t tenant) Delete(ctx context.Context, r *driver.DeleteRequest) error {
	return t.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: t.prefix + r.FilePath})
}

// A wrapper that embeds a Backend and overrides its four methods is used through those methods
// only: capabilities of the embedded Backend are never used behind them, so a tenant's plan
// stays under its prefix and reads back.
func TestEmbeddedWrapperOverridesAreNeverBypassed(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	a := storeOn(t, tenant{mem, "/a"}, "")
	root := storeOn(t, mem, "")
	_, err := a.Put(ctx, plan.Update{Name: "secret", Content: ptrTo("- [ ] tenant a only\n")})
	require.NoError(t, err)

	_, err = a.Get(ctx, "secret")
	assert.NoError(t, err, "tenant a reads back what it wrote")
	_, err = root.Get(ctx, "secret")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err), "nothing lands outside /a")
	fc, _ := mem.Read(ctx, &driver.ReadRequest{FilePath: "/plans/secret.md", Offset: 1, Limit: 100})
	if fc != nil {
		t.Logf("found at the unprefixed path: %q", strings.SplitN(fc.Content, "\n", 2)[0])
	}
}

// A wrapper that embeds a Backend and overrides its methods lists the plans written through
// it.
func TestEmbeddedWrapperListsItsOwnPlans(t *testing.T) {
	ctx := context.Background()
	a := storeOn(t, tenant{plan.NewMemoryBackend(), "/a"}, "")
	_, err := a.Put(ctx, plan.Update{Name: "mine", Content: ptrTo("- [ ] x\n")})
	require.NoError(t, err)
	l, err := a.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, l.Plans, 1, "the plan just written is listed")
}

// logged is a logging wrapper that says what it wraps.
type logged struct {
	plan.Backend
	mu    sync.Mutex
	calls int
}

func (l *logged) Write(ctx context.Context, req *driver.WriteRequest) error {
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
			errs <- backendtest.GuardedIncrements(ctx, s, "counter", n)
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

// Stores on two pointer wrappers of one Backend that say what they wrap through Unwrap are one
// storage: concurrent guarded increments through both lose none.
func TestPointerWrappersShareStorage(t *testing.T) {
	mem := plan.NewMemoryBackend()
	// A wrapper that hides the driver.Swapper too: only identity through Unwrap protects it.
	hidden := func() plan.Backend { return &logged{Backend: embedded{mem}} }
	counterWorkers(t, []*plan.Store{storeOn(t, hidden(), ""), storeOn(t, hidden(), "")}, 1000)
}

// Stores on one Backend whose BaseDir is spelled "plans", "/plans" and "/plans/" are one
// folder: concurrent guarded increments through all three lose none.
func TestBaseDirSpellingsAreOneFolder(t *testing.T) {
	mem := &logged{Backend: embedded{plan.NewMemoryBackend()}}
	a, b, c := storeOn(t, mem, "plans"), storeOn(t, mem, "/plans"), storeOn(t, mem, "/plans/")
	counterWorkers(t, []*plan.Store{a, b, c}, 400)
}

// A Backend value that is not comparable is accepted without a panic by NewStore and New;
// sharing it is then explicit, one Store passed to every middleware.
func TestUnhashableBackendValueDoesNotPanic(t *testing.T) {
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

// embeddedChildEnv names the root that TestEmbeddingWrapperChildWriter, run as a child
// process, writes on.
const embeddedChildEnv = "PLAN_EMBEDDED_CHILD"

// TestEmbeddingWrapperChildWriter is the child side of
// TestEmbeddingWrapperAroundLocalSharesStorage: guarded increments through an embedded-wrapper
// LocalBackend.
func TestEmbeddingWrapperChildWriter(t *testing.T) {
	childtest.SkipUnlessChild(t)
	root := os.Getenv(embeddedChildEnv)
	s := storeOn(t, embedded{newLocal(t, root)}, "")
	require.NoError(t, backendtest.GuardedIncrements(context.Background(), s, "counter", 100))
}

// A wrapper that only embeds a LocalBackend shares its storage with the bare LocalBackend on
// the same root, in one process and across two: guarded increments through both lose none.
func TestEmbeddingWrapperAroundLocalSharesStorage(t *testing.T) {
	t.Run("one process", func(t *testing.T) {
		root := t.TempDir()
		counterWorkers(t, []*plan.Store{storeOn(t, newLocal(t, root), ""), storeOn(t, embedded{newLocal(t, root)}, "")}, 100)
	})
	t.Run("two processes", func(t *testing.T) {
		root := t.TempDir()
		s := storeOn(t, newLocal(t, root), "")
		_, err := s.Put(context.Background(), plan.Update{Name: "counter", Content: ptrTo("0")})
		require.NoError(t, err)
		child := childtest.Start(t, "TestEmbeddingWrapperChildWriter", map[string]string{embeddedChildEnv: root})
		out := make(chan error, 1)
		go func() { out <- child.Wait() }()
		require.NoError(t, backendtest.GuardedIncrements(context.Background(), s, "counter", 100))
		require.NoError(t, <-out)
		assertCounter(t, s, 200)
	})
}

// memTenant keeps a tenant under its own prefix of a MemoryBackend it embeds by pointer,
// overriding the four methods and every capability a MemoryBackend offers, so that none is
// used behind its back.
type memTenant struct {
	*plan.MemoryBackend
	prefix string
}

// asTenant is t's four methods: tenant's, over the same MemoryBackend and prefix.
func (t memTenant) asTenant() tenant { return tenant{t.MemoryBackend, t.prefix} }

func (t memTenant) LsInfo(ctx context.Context, r *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return t.asTenant().LsInfo(ctx, r)
}

func (t memTenant) Read(ctx context.Context, r *driver.ReadRequest) (*driver.FileContent, error) {
	return t.asTenant().Read(ctx, r)
}

func (t memTenant) ReadAtMost(ctx context.Context, p string, max int64) (string, error) {
	return t.MemoryBackend.ReadAtMost(ctx, t.prefix+p, max)
}

func (t memTenant) Write(ctx context.Context, r *driver.WriteRequest) error {
	return t.asTenant().Write(ctx, r)
}

func (t memTenant) CompareAndSwap(ctx context.Context, r *driver.WriteRequest, old *string) (bool, error) {
	return t.MemoryBackend.CompareAndSwap(ctx, &driver.WriteRequest{FilePath: t.prefix + r.FilePath, Content: r.Content}, old)
}

func (t memTenant) Delete(ctx context.Context, r *driver.DeleteRequest) error {
	return t.asTenant().Delete(ctx, r)
}

func (t memTenant) CompareAndDelete(ctx context.Context, r *driver.DeleteRequest, old string) (bool, error) {
	return t.MemoryBackend.CompareAndDelete(ctx, &driver.DeleteRequest{FilePath: t.prefix + r.FilePath}, old)
}

func (t memTenant) DeleteLazily(ctx context.Context, paths ...string) error {
	moved := make([]string, len(paths))
	for i, p := range paths {
		moved[i] = t.prefix + p
	}
	return t.MemoryBackend.DeleteLazily(ctx, moved...)
}

// A wrapper that embeds *MemoryBackend and moves every path lists its own plans only: the
// MemoryBackend's folder stamps, which know nothing of the move, are never lent to it.
func TestATenantOverAnEmbeddedMemoryBackendListsItsOwnPlansOnly(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	a := storeOn(t, memTenant{mem, "/a"}, "")
	b := storeOn(t, memTenant{mem, "/b"}, "")
	_, err := a.Put(ctx, plan.Update{Name: "secret", Content: ptrTo("- [ ] tenant a only\n")})
	require.NoError(t, err)
	for range 2 {
		l, err := a.ListPage(ctx, plan.ListOptions{})
		require.NoError(t, err)
		require.Len(t, l.Plans, 1)
	}
	l, err := b.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, l.Plans, "tenant b lists tenant a's plans")
}
