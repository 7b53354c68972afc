package engine

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
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
		s, err := NewStore(&StoreConfig{Backend: memfs.New()})
		require.NoError(t, err)
		_, err = s.Put(ctx, Update{Name: "p", Content: &content})
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
		s, err := NewStore(&StoreConfig{Backend: b})
		require.NoError(t, err)
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
	a, err := NewStore(&StoreConfig{Backend: mem, BaseDir: "plans"})
	require.NoError(t, err)
	b, err := NewStore(&StoreConfig{Backend: struct{ driver.Backend }{mem}, BaseDir: "/plans/"})
	require.NoError(t, err)
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
