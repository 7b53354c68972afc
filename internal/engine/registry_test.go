package engine

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/childtest"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/localfs"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func registrySize() int {
	registry.Lock()
	defer registry.Unlock()
	return len(registry.states)
}

// settle collects garbage until the registry's cleanups have run.
func settleRegistry(want int) int {
	n := registrySize()
	for i := 0; i < 50 && n > want; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		n = registrySize()
	}
	return n
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func openFDs(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here")
	}
	return len(entries)
}

// TestRegistryHoldsNothingForDroppedBackends: Stores and backends created and dropped in a
// loop leave the heap, the registry and the open files where they were.
func TestRegistryHoldsNothingForDroppedBackends(t *testing.T) {
	ctx := context.Background()
	content := "- [ ] step\n"
	baseEntries := settleRegistry(0)
	baseHeap := liveHeap()
	for i := 0; i < 10000; i++ {
		s := storeOn(t, memfs.New(), "")
		_, err := s.Put(ctx, Update{Name: "p", Content: &content})
		require.NoError(t, err)
		_, err = s.ListPage(ctx, ListOptions{})
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, settleRegistry(baseEntries), baseEntries)
	heap := liveHeap()
	assert.Less(t, int64(heap)-int64(baseHeap), int64(2<<20), "live heap grew from %d to %d", baseHeap, heap)

	root := t.TempDir()
	baseFDs := openFDs(t)
	for i := 0; i < 500; i++ {
		b, err := localfs.New(root)
		require.NoError(t, err)
		s := storeOn(t, b, "")
		_, err = s.Put(ctx, Update{Name: "p", Content: &content})
		require.NoError(t, err)
	}
	settleRegistry(baseEntries)
	liveHeap()
	time.Sleep(50 * time.Millisecond) // finalizers closing the roots
	liveHeap()
	assert.LessOrEqual(t, openFDs(t), baseFDs+5, "the dropped backends' files are closed")
}

// TestRegistrySharesLiveState: while a Store lives, another Store on the same storage gets
// the same state, through a wrapper too.
func TestRegistrySharesLiveState(t *testing.T) {
	mem := memfs.New()
	a := storeOn(t, mem, "plans")
	b := mustStore(t, StoreConfig{Backend: struct{ driver.Backend }{mem}, BaseDir: "/plans/"})
	assert.Same(t, a.shared, b.shared)
	root := t.TempDir()
	l1, err := localfs.New(root)
	require.NoError(t, err)
	l2, err := localfs.New(root + "/.")
	require.NoError(t, err)
	c, _ := NewStore(&StoreConfig{Backend: l1})
	d, _ := NewStore(&StoreConfig{Backend: l2})
	assert.Same(t, c.shared, d.shared, "two LocalBackends on one root are one storage")
	runtime.KeepAlive(a)
}

// tenant embeds a Backend and overrides all four methods to keep each tenant under its
// own prefix: the ordinary Go way to decorate an interface.
type tenant struct {
	driver.Backend
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
	mem := memfs.New()
	a := storeOn(t, tenant{mem, "/a"}, "")
	root := storeOn(t, mem, "")
	_, err := a.Put(ctx, Update{Name: "secret", Content: ptrTo("- [ ] tenant a only\n")})
	require.NoError(t, err)

	_, err = a.Get(ctx, "secret")
	assert.NoError(t, err, "tenant a reads back what it wrote")
	_, err = root.Get(ctx, "secret")
	assert.Equal(t, document.CodeNotFound, document.CodeOf(err), "nothing lands outside /a")
	fc, _ := mem.Read(ctx, &driver.ReadRequest{FilePath: "/plans/secret.md", Offset: 1, Limit: 100})
	if fc != nil {
		t.Logf("found at the unprefixed path: %q", strings.SplitN(fc.Content, "\n", 2)[0])
	}
}

// A wrapper that embeds a Backend and overrides its methods lists the plans written through
// it.
func TestEmbeddedWrapperListsItsOwnPlans(t *testing.T) {
	ctx := context.Background()
	a := storeOn(t, tenant{memfs.New(), "/a"}, "")
	_, err := a.Put(ctx, Update{Name: "mine", Content: ptrTo("- [ ] x\n")})
	require.NoError(t, err)
	l, err := a.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	assert.Len(t, l.Plans, 1, "the plan just written is listed")
}

// logged is a logging wrapper that says what it wraps.
type logged struct {
	driver.Backend
	mu    sync.Mutex
	calls int
}

func (l *logged) Write(ctx context.Context, req *driver.WriteRequest) error {
	l.mu.Lock()
	l.calls++
	l.mu.Unlock()
	return l.Backend.Write(ctx, req)
}

func (l *logged) Unwrap() driver.Backend { return l.Backend }

// embedded hides every capability of what it wraps: it only embeds the interface.
type embedded struct{ driver.Backend }

// counterWorkers runs writers that each make n guarded increments of one counter plan, every
// writer on its own Store, and checks that none was lost.
func counterWorkers(t *testing.T, stores []*Store, n int) {
	t.Helper()
	ctx := context.Background()
	_, err := stores[0].Put(ctx, Update{Name: "counter", Content: ptrTo("0"), IfRevision: ptrTo[int64](0)})
	require.NoError(t, err)
	for _, err := range inParallel(len(stores), func(i int) error { return guardedIncrements(ctx, stores[i], "counter", n) }) {
		require.NoError(t, err)
	}
	assertCounter(t, stores[0], len(stores)*n)
}

func assertCounter(t *testing.T, s *Store, want int) {
	t.Helper()
	p, err := s.Get(context.Background(), "counter")
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(want), p.Content, "%d increments made, none lost", want)
	assert.EqualValues(t, want+1, p.Revision)
}

// Stores on two pointer wrappers of one Backend that say what they wrap through Unwrap are one
// storage: concurrent guarded increments through both lose none.
func TestPointerWrappersShareStorage(t *testing.T) {
	mem := memfs.New()
	// A wrapper that hides the driver.Swapper too: only identity through Unwrap protects it.
	hidden := func() driver.Backend { return &logged{Backend: embedded{mem}} }
	counterWorkers(t, []*Store{storeOn(t, hidden(), ""), storeOn(t, hidden(), "")}, 1000)
}

// Stores on one Backend whose BaseDir is spelled "plans", "/plans" and "/plans/" are one
// folder: concurrent guarded increments through all three lose none.
func TestBaseDirSpellingsAreOneFolder(t *testing.T) {
	mem := &logged{Backend: embedded{memfs.New()}}
	a, b, c := storeOn(t, mem, "plans"), storeOn(t, mem, "/plans"), storeOn(t, mem, "/plans/")
	counterWorkers(t, []*Store{a, b, c}, 400)
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
	require.NoError(t, guardedIncrements(context.Background(), s, "counter", 100))
}

// A wrapper that only embeds a LocalBackend shares its storage with the bare LocalBackend on
// the same root, in one process and across two: guarded increments through both lose none.
func TestEmbeddingWrapperAroundLocalSharesStorage(t *testing.T) {
	t.Run("one process", func(t *testing.T) {
		root := t.TempDir()
		counterWorkers(t, []*Store{storeOn(t, newLocal(t, root), ""), storeOn(t, embedded{newLocal(t, root)}, "")}, 100)
	})
	t.Run("two processes", func(t *testing.T) {
		root := t.TempDir()
		s := storeOn(t, newLocal(t, root), "")
		_, err := s.Put(context.Background(), Update{Name: "counter", Content: ptrTo("0")})
		require.NoError(t, err)
		child := childtest.Start(t, "TestEmbeddingWrapperChildWriter", map[string]string{embeddedChildEnv: root})
		out := make(chan error, 1)
		go func() { out <- child.Wait() }()
		require.NoError(t, guardedIncrements(context.Background(), s, "counter", 100))
		require.NoError(t, <-out)
		assertCounter(t, s, 200)
	})
}

// memTenant keeps a tenant under its own prefix of a MemoryBackend it embeds by pointer,
// overriding the four methods and every capability a MemoryBackend offers, so that none is
// used behind its back.
type memTenant struct {
	*memfs.Backend
	prefix string
}

// asTenant is t's four methods: tenant's, over the same MemoryBackend and prefix.
func (t memTenant) asTenant() tenant { return tenant{t.Backend, t.prefix} }

func (t memTenant) LsInfo(ctx context.Context, r *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return t.asTenant().LsInfo(ctx, r)
}

func (t memTenant) Read(ctx context.Context, r *driver.ReadRequest) (*driver.FileContent, error) {
	return t.asTenant().Read(ctx, r)
}

func (t memTenant) ReadAtMost(ctx context.Context, p string, max int64) (string, error) {
	return t.Backend.ReadAtMost(ctx, t.prefix+p, max)
}

func (t memTenant) Write(ctx context.Context, r *driver.WriteRequest) error {
	return t.asTenant().Write(ctx, r)
}

func (t memTenant) CompareAndSwap(ctx context.Context, r *driver.WriteRequest, old *string) (bool, error) {
	return t.Backend.CompareAndSwap(ctx, &driver.WriteRequest{FilePath: t.prefix + r.FilePath, Content: r.Content}, old)
}

func (t memTenant) Delete(ctx context.Context, r *driver.DeleteRequest) error {
	return t.asTenant().Delete(ctx, r)
}

func (t memTenant) CompareAndDelete(ctx context.Context, r *driver.DeleteRequest, old string) (bool, error) {
	return t.Backend.CompareAndDelete(ctx, &driver.DeleteRequest{FilePath: t.prefix + r.FilePath}, old)
}

func (t memTenant) DeleteLazily(ctx context.Context, paths ...string) error {
	moved := make([]string, len(paths))
	for i, p := range paths {
		moved[i] = t.prefix + p
	}
	return t.Backend.DeleteLazily(ctx, moved...)
}

// A wrapper that embeds *MemoryBackend and moves every path lists its own plans only: the
// MemoryBackend's folder stamps, which know nothing of the move, are never lent to it.
func TestATenantOverAnEmbeddedMemoryBackendListsItsOwnPlansOnly(t *testing.T) {
	ctx := context.Background()
	mem := memfs.New()
	a := storeOn(t, memTenant{mem, "/a"}, "")
	b := storeOn(t, memTenant{mem, "/b"}, "")
	_, err := a.Put(ctx, Update{Name: "secret", Content: ptrTo("- [ ] tenant a only\n")})
	require.NoError(t, err)
	for range 2 {
		l, err := a.ListPage(ctx, ListOptions{})
		require.NoError(t, err)
		require.Len(t, l.Plans, 1)
	}
	l, err := b.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, l.Plans, "tenant b lists tenant a's plans")
}

// guardedIncrements adds n to the integer body of plan name, one guarded write at a time,
// re-reading and retrying on revision_conflict. Tests of cross-process safety run it in
// several processes at once.
func guardedIncrements(ctx context.Context, s *Store, name string, n int) error {
	for i := 0; i < n; {
		p, err := s.Get(ctx, name)
		if err != nil {
			return err
		}
		var v int
		if _, err := fmt.Sscan(p.Content, &v); err != nil {
			return fmt.Errorf("revision %d body %q: %w", p.Revision, p.Content, err)
		}
		_, err = s.Put(ctx, Update{Name: name, Content: ptrTo(fmt.Sprint(v + 1)), IfRevision: ptrTo(p.Revision)})
		switch document.CodeOf(err) {
		case "":
			i++
		case document.CodeRevisionConflict:
		default:
			return err
		}
	}
	return nil
}
