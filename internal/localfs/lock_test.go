//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package localfs

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/einoplan/plan/driver"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLocalBackendLockExcludes(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	other := openLocal(t, root)

	unlock, err := b.Lock(ctx, "/plans")
	require.NoError(t, err)
	fi, err := os.Stat(filepath.Join(root, "plans", localLockName))
	require.NoError(t, err)
	assert.Equal(t, umaskedMode(t, 0o600), fi.Mode().Perm())

	// Held: a second Lock, on this backend or another over the same root, waits.
	for _, l := range []*Backend{b, other} {
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		_, err = l.Lock(short, "plans")
		cancel()
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	}

	var got atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		unlock2, err := other.Lock(ctx, "/plans/")
		if !assert.NoError(t, err) {
			return
		}
		got.Store(true)
		unlock2()
	}()
	time.Sleep(30 * time.Millisecond)
	assert.False(t, got.Load(), "lock taken while held")
	unlock()
	unlock() // idempotent
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("waiter never got the released lock")
	}
	assert.True(t, got.Load())

	// Other folders are independent.
	u1, err := b.Lock(ctx, "/a")
	require.NoError(t, err)
	u2, err := b.Lock(ctx, "/b")
	require.NoError(t, err)
	u1()
	u2()

	infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/plans"})
	require.NoError(t, err)
	assert.Empty(t, infos, "the lock sentinel is never listed")
}

func TestLocalBackendLockRefusesHostileDirs(t *testing.T) {
	b, _ := newTestLocal(t)
	for _, dir := range []string{"..", "../x", "a/../../b", "\x00"} {
		_, err := b.Lock(context.Background(), dir)
		assert.ErrorIs(t, err, driver.ErrOutsideRoot, dir)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := b.Lock(ctx, "/plans")
	assert.ErrorIs(t, err, context.Canceled)
}
