package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/localfs"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a LocalBackend on Linux a change keeps the file it replaces by swapping it into the
// history: the entry is that very file, so a change creates one file, the new plan file.
func TestALocalChangeKeepsTheReplacedPlanFileItself(t *testing.T) {
	ctx := context.Background()
	root, b, s := shipOnLocal(t)
	var err error
	planFile := filepath.Join(root, "plans", "ship.md")
	first := inodeOf(t, planFile)
	_, err = s.SetStatus(ctx, "ship", "active", nil)
	require.NoError(t, err)
	files := historyEntries(t, b, "ship")
	require.Len(t, files, 1)
	assert.Equal(t, first, inodeOf(t, filepath.Join(root, filepath.FromSlash(files[0]))))
	assert.NotEqual(t, first, inodeOf(t, planFile))
	old, err := s.GetRevision(ctx, "ship", 1)
	require.NoError(t, err)
	assert.Equal(t, "draft", old.Status)
}

func inodeOf(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	require.NoError(t, err)
	return uint64(fi.Sys().(*syscall.Stat_t).Ino)
}

// A replaced plan file holds a temp name for a moment on its way to the history, with its
// old modification time; listings, which sweep temp files that look abandoned, never take
// it, so no change loses its entry.
func TestASweepNeverTakesAReplacedPlanOnItsWayToTheHistory(t *testing.T) {
	ctx := context.Background()
	root, b, s := shipOnLocal(t)
	planFile := filepath.Join(root, "plans", "ship.md")
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for !stop.Load() {
				_, _ = b.LsInfo(ctx, &driver.LsInfoRequest{Path: "/plans"})
			}
		})
	}
	lost := 0
	for i := range 200 {
		old := time.Now().Add(-time.Hour)
		require.NoError(t, os.Chtimes(planFile, old, old)) // last written an hour ago
		_, err := s.SetStatus(ctx, "ship", fmt.Sprint("s", i), nil)
		require.NoError(t, err)
		h, err := s.History(ctx, "ship")
		require.NoError(t, err)
		if len(h) < 2 {
			lost++
		}
	}
	stop.Store(true)
	wg.Wait()
	assert.Zero(t, lost, "changes whose replaced file was swept before it reached the history")
}

// shipOnLocal is a Store on a LocalBackend in a temp folder (root) holding plan "ship" at
// revision 1.
func shipOnLocal(t *testing.T) (string, *localfs.Backend, *Store) {
	t.Helper()
	root := t.TempDir()
	b := newLocal(t, root)
	s := shipOn(t, b, "- [ ] build\n")
	return root, b, s
}
