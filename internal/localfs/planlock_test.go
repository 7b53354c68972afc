//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package localfs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waits reports whether lock is still waiting after a short while (and so gave up).
func waits(t *testing.T, lock func(ctx context.Context) (func(), error)) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	unlock, err := lock(ctx)
	if err == nil {
		unlock()
		return false
	}
	require.ErrorIs(t, err, context.DeadlineExceeded)
	return true
}

func TestLocalLockPlanExcludes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("plan locks finer than the folder need open file description locks")
	}
	ctx := context.Background()
	b, root := newTestLocal(t)
	other := openLocal(t, root)
	plan := func(l *Backend, name string) func(context.Context) (func(), error) {
		return func(ctx context.Context) (func(), error) { return l.LockPlan(ctx, "/plans", name) }
	}
	folder := func(ctx context.Context) (func(), error) { return other.Lock(ctx, "/plans") }

	unlockA, err := b.LockPlan(ctx, "/plans", "a")
	require.NoError(t, err)
	assert.True(t, waits(t, plan(other, "a")), "the same plan, another backend value")
	assert.True(t, waits(t, plan(b, "a")), "the same plan, the same backend value")
	assert.True(t, waits(t, folder), "the folder lock waits for any plan lock")
	assert.False(t, waits(t, plan(other, "b")), "another plan never waits")
	unlockB, err := other.LockPlan(ctx, "/plans", "b")
	require.NoError(t, err)
	assert.False(t, waits(t, plan(b, "c")))
	unlockA()
	unlockA() // idempotent
	assert.False(t, waits(t, plan(other, "a")), "released")
	assert.True(t, waits(t, folder), "b still holds")
	unlockB()

	unlockDir, err := b.Lock(ctx, "/plans")
	require.NoError(t, err)
	assert.True(t, waits(t, plan(other, "z")), "every plan lock waits for the folder lock")
	unlockDir()
	assert.False(t, waits(t, plan(other, "z")))

	// However many names were locked, the folder holds only the one sentinel file.
	for i := range 200 {
		u, err := b.LockPlan(ctx, "/plans", fmt.Sprintf("n%d", i))
		require.NoError(t, err)
		u()
	}
	entries, err := os.ReadDir(filepath.Join(root, "plans"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, localLockName, entries[0].Name())

	ctxDone, cancel := context.WithCancel(ctx)
	cancel()
	_, err = b.LockPlan(ctxDone, "/plans", "a")
	assert.ErrorIs(t, err, context.Canceled)
	_, err = b.LockPlan(ctx, "../x", "a")
	assert.ErrorIs(t, err, driver.ErrOutsideRoot)
}

// Without open file description locks LockPlan is the folder lock: slower, as safe.
func TestLocalLockPlanFallsBackToFolder(t *testing.T) {
	ctx := context.Background()
	was := rangeLocks.Load()
	rangeLocks.Store(false)
	defer rangeLocks.Store(was)
	b, _ := newTestLocal(t)
	unlock, err := b.LockPlan(ctx, "/plans", "a")
	require.NoError(t, err)
	assert.True(t, waits(t, func(ctx context.Context) (func(), error) { return b.LockPlan(ctx, "/plans", "b") }))
	assert.True(t, waits(t, func(ctx context.Context) (func(), error) { return b.Lock(ctx, "/plans") }))
	unlock()
	assert.False(t, waits(t, func(ctx context.Context) (func(), error) { return b.LockPlan(ctx, "/plans", "b") }))
}

// Plan names and folder entry names never share a lock byte, so a plan's lock holder can
// always take an entry's lock.
func TestPlanLockOffsetsApart(t *testing.T) {
	entry := planLockOffset(".deleted")
	assert.Zero(t, entry&1)
	for i := range 1000 {
		off := planLockOffset(fmt.Sprintf("plan-%d", i))
		assert.EqualValues(t, 1, off&1)
		assert.Positive(t, off)
	}
}
