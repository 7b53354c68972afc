//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einoplan/plan/internal/document"

	"github.com/einoplan/plan/internal/childtest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The variables that tell TestLocalBackendChildProcess, run as a child process, what to do
// and on which root.
const (
	childModeEnv = "PLAN_LOCAL_CHILD_MODE"
	childRootEnv = "PLAN_LOCAL_CHILD_ROOT"
)

const (
	childWorkers    = 8
	childIncrements = 25
	processes       = 4
	crashes         = 30
)

func startChild(t *testing.T, mode, root string) *childtest.Child {
	t.Helper()
	return childtest.Start(t, "TestLocalBackendChildProcess", map[string]string{childModeEnv: mode, childRootEnv: root})
}

// processStore skips the test under -short, as it spawns processes, and returns a new
// folder and a Store made with cfg on a LocalBackend there.
func processStore(t *testing.T, cfg StoreConfig) (string, *Store) {
	t.Helper()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	root := t.TempDir()
	cfg.Backend = newLocal(t, root)
	return root, mustStore(t, cfg)
}

// TestLocalBackendChildProcess is the worker side of the multi-process tests.
func TestLocalBackendChildProcess(t *testing.T) {
	childtest.SkipUnlessChild(t)
	mode, root := os.Getenv(childModeEnv), os.Getenv(childRootEnv)
	ctx := context.Background()
	s := storeOn(t, newLocal(t, root), "/plans")
	switch mode {
	case "increment":
		for _, err := range inParallel(childWorkers, func(int) error { return guardedIncrements(ctx, s, "counter", childIncrements) }) {
			t.Error(err)
		}
	case "crash":
		// Write until killed: plans of varied sizes, some deleted and recreated, so a kill
		// can land inside any step of a write or a delete.
		for i := 0; ; i++ {
			name := fmt.Sprintf("p%d", i%5)
			body := fmt.Sprintf("# %s at %d\n%s", name, i, strings.Repeat("- [ ] step\n", rand.IntN(3000)))
			var err error
			if i%7 == 6 {
				_, err = s.Delete(ctx, name, nil)
				if document.CodeOf(err) == document.CodeNotFound {
					err = nil
				}
			} else {
				_, err = s.Put(ctx, Update{Name: name, Content: &body, Status: fmt.Sprint("round ", i)})
			}
			require.NoError(t, err)
			if i == 0 {
				fmt.Println("writing")
			}
		}
	default:
		t.Fatalf("unknown mode %q", mode)
	}
}

// TestLocalBackendProcessesIncrement runs 4 processes of 8 goroutines, each making 25
// guarded increments of one plan through its own Store: no update may be lost, and every
// revision a reader sees meanwhile decodes.
func TestLocalBackendProcessesIncrement(t *testing.T) {
	root, s := processStore(t, StoreConfig{BaseDir: "/plans"})
	ctx := context.Background()
	zero := "0"
	_, err := s.Put(ctx, Update{Name: "counter", Content: &zero})
	require.NoError(t, err)

	var children []*childtest.Child
	for range processes {
		children = append(children, startChild(t, "increment", root))
	}

	// Read while the children write: every revision decodes and none goes backwards.
	var stop atomic.Bool
	var reads atomic.Int64
	readerDone := make(chan error, 1)
	go func() {
		var last int64
		for !stop.Load() {
			p, err := s.Get(ctx, "counter")
			if err != nil {
				readerDone <- err
				return
			}
			var v int64
			if _, err := fmt.Sscan(p.Content, &v); err != nil || v != p.Revision-1 {
				readerDone <- fmt.Errorf("revision %d holds %q", p.Revision, p.Content)
				return
			}
			if p.Revision < last {
				readerDone <- fmt.Errorf("revision went back from %d to %d", last, p.Revision)
				return
			}
			last = p.Revision
			reads.Add(1)
		}
		readerDone <- nil
	}()

	for i, c := range children {
		err := c.Wait()
		assert.NoError(t, err, "child %d", i)
	}
	stop.Store(true)
	require.NoError(t, <-readerDone)
	t.Logf("%d reads during the writes", reads.Load())

	got, err := s.Get(ctx, "counter")
	require.NoError(t, err)
	assert.EqualValues(t, 1+processes*childWorkers*childIncrements, got.Revision)
	assert.Equal(t, fmt.Sprint(processes*childWorkers*childIncrements), got.Content)
}

// TestLocalBackendSurvivesKill kills a writing process with SIGKILL at 30 random instants;
// afterwards every plan decodes and List reports no warnings.
func TestLocalBackendSurvivesKill(t *testing.T) {
	root, s := processStore(t, StoreConfig{BaseDir: "/plans"})
	ctx := context.Background()

	for i := range crashes {
		child := startChild(t, "crash", root)
		line, err := child.Stdout.ReadString('\n')
		require.NoError(t, err, "child %d never started writing:\n%s", i, child.Stderr())
		require.Equal(t, "writing\n", line)
		time.Sleep(time.Duration(rand.Int64N(int64(100 * time.Millisecond))))
		require.NoError(t, child.Cmd.Process.Kill())
		_ = child.Wait()

		listing, err := s.ListPage(ctx, ListOptions{})
		require.NoError(t, err)
		require.Empty(t, listing.Warnings, "after kill %d", i)
		for _, sum := range listing.Plans {
			_, err := s.Get(ctx, sum.Name)
			require.NoError(t, err, "after kill %d", i)
		}
	}

	// Every file that looks like a plan decodes, whether or not List saw it.
	matches, err := filepath.Glob(filepath.Join(root, "plans", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, matches)
	for _, m := range matches {
		raw, err := os.ReadFile(m)
		require.NoError(t, err)
		_, err = document.DecodePlan(strings.TrimSuffix(filepath.Base(m), ".md"), string(raw))
		require.NoError(t, err, m)
	}
	// Kills that landed between creating a temp file and renaming it leave the temp file,
	// hidden from List and swept once stale.
	temps, err := filepath.Glob(filepath.Join(root, "plans", ".*.tmp-*"))
	require.NoError(t, err)
	t.Logf("%d kills landed inside a write", len(temps))

	// The plans stay writable: no lock was left held by a killed writer.
	lockCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	body := "after the crashes"
	_, err = s.Put(lockCtx, Update{Name: "p0", Content: &body})
	require.NoError(t, err)
}
