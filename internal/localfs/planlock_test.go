//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package plan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk/filesystem"
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
	other, err := NewLocalBackend(root)
	require.NoError(t, err)
	defer other.Close()
	plan := func(l *LocalBackend, name string) func(context.Context) (func(), error) {
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
	assert.ErrorIs(t, err, ErrOutsideRoot)
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

// strayRace stalls the first read of b's tombstone, after it failed, until a's delete is
// done, and a's clearing of the tombstones' folder until that read failed.
type strayRace struct {
	Backend
	armed        atomic.Bool
	bRead, aDone chan struct{}
	readOnce     sync.Once
	clearOnce    sync.Once
}

func (r *strayRace) Read(ctx context.Context, req *ReadRequest) (*filesystem.FileContent, error) {
	fc, err := r.Backend.Read(ctx, req)
	if req.FilePath == "/plans/.deleted/b" && r.armed.Load() {
		r.readOnce.Do(func() {
			close(r.bRead)
			<-r.aDone
		})
	}
	return fc, err
}

func (r *strayRace) Delete(ctx context.Context, req *DeleteRequest) error {
	if req.FilePath == "/plans/.deleted" {
		r.clearOnce.Do(func() {
			select {
			case <-r.bRead:
			case <-time.After(5 * time.Second):
			}
		})
	}
	return r.Backend.Delete(ctx, req)
}

// Deletes of two plans that both find a stray file where the tombstones' folder goes clear
// it once between them: b's delete never removes the folder a's delete has just made, so a
// re-created a goes on from its last revision.
func TestStrayTombstoneFolderClearedOnce(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	race := &strayRace{Backend: b, bRead: make(chan struct{}), aDone: make(chan struct{})}
	s, err := NewStore(&StoreConfig{Backend: race})
	require.NoError(t, err)
	for _, name := range []string{"a", "b"} {
		for range 3 {
			_, err := s.Put(ctx, Update{Name: name, Content: ptrTo("x")})
			require.NoError(t, err)
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "plans", ".deleted"), []byte("stray"), 0o600))
	race.armed.Store(true)
	bDone := make(chan error, 1)
	go func() {
		_, err := s.Delete(ctx, "b", nil)
		bDone <- err
	}()
	select {
	case <-race.bRead:
	case <-time.After(10 * time.Second):
		t.Fatal("b's delete never read its tombstone")
	}
	_, err = s.Delete(ctx, "a", nil)
	close(race.aDone)
	require.NoError(t, err)
	require.NoError(t, <-bDone)
	for _, name := range []string{"a", "b"} {
		p, err := s.Put(ctx, Update{Name: name, Content: ptrTo("again")})
		require.NoError(t, err)
		assert.EqualValues(t, 4, p.Revision, "%s: revisions go on after delete", name)
	}
}

// Plan names and folder entry names never share a lock byte, so a plan's lock holder can
// always take an entry's lock.
func TestPlanLockOffsetsApart(t *testing.T) {
	entry := planLockOffset(tombstonesLock)
	assert.Zero(t, entry&1)
	for i := range 1000 {
		off := planLockOffset(fmt.Sprintf("plan-%d", i))
		assert.EqualValues(t, 1, off&1)
		assert.Positive(t, off)
	}
}

// Where LockPlan is the folder lock, a delete that finds a stray entry where the tombstones'
// folder goes does not wait for the lock it already holds.
func TestDeleteWithFolderWidePlanLocksAndAStrayEntry(t *testing.T) {
	was := rangeLocks.Load()
	rangeLocks.Store(false)
	defer rangeLocks.Store(was)
	root := t.TempDir()
	b, err := NewLocalBackend(root)
	require.NoError(t, err)
	defer b.Close()
	s, err := NewStore(&StoreConfig{Backend: b})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] a\n")})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "plans", ".deleted"), nil, 0o600))
	_, err = s.Delete(ctx, "p", nil)
	require.NoError(t, err)
}
