//go:build linux

package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/einoplan/plan/internal/childtest"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/localfs"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The variables that tell TestPlanLockChildProcess, run as a child process, what to do and
// on which root.
const (
	planLockModeEnv = "PLAN_LOCK_CHILD_MODE"
	planLockRootEnv = "PLAN_LOCK_CHILD_ROOT"
)

const (
	mixedProcesses  = 3
	mixedWorkers    = 4
	mixedIncrements = 15
)

// stallingLocal is a LocalBackend whose first write of a.md says "held" on stdout and then
// waits until stdin closes: a process stalled inside plan a's lock.
type stallingLocal struct {
	*localfs.Backend
	once sync.Once
}

func (s *stallingLocal) Write(ctx context.Context, req *driver.WriteRequest) error {
	if strings.HasSuffix(req.FilePath, "/a.md") {
		s.once.Do(func() {
			fmt.Println("held")
			_, _ = io.Copy(io.Discard, os.Stdin)
		})
	}
	return s.Backend.Write(ctx, req)
}

func lockChildEnv(mode, root string) map[string]string {
	return map[string]string{planLockModeEnv: mode, planLockRootEnv: root}
}

// TestPlanLockChildProcess is the worker side of the per-plan lock tests.
func TestPlanLockChildProcess(t *testing.T) {
	childtest.SkipUnlessChild(t)
	mode, root := os.Getenv(planLockModeEnv), os.Getenv(planLockRootEnv)
	ctx := context.Background()
	switch mode {
	case "stall":
		s := mustStore(t, StoreConfig{Backend: &stallingLocal{Backend: newLocal(t, root)}, HistoryLimit: 5})
		_, err := s.Put(ctx, Update{Name: "a", Content: ptrTo("from the child\n"), IfRevision: ptrTo(int64(0))})
		require.NoError(t, err)
	case "mixed":
		s := mustStore(t, StoreConfig{Backend: newLocal(t, root), HistoryLimit: 5})
		// Each worker w increments the shared counter and a plan of its own, created first.
		for _, err := range inParallel(2*mixedWorkers, func(i int) error {
			name := "counter"
			if i%2 == 1 {
				name = fmt.Sprintf("own-%d-%d", childtest.Index(), i/2)
				if _, err := s.Put(ctx, Update{Name: name, Content: ptrTo("0"), IfRevision: ptrTo(int64(0))}); err != nil {
					return err
				}
			}
			return guardedIncrements(ctx, s, name, mixedIncrements)
		}) {
			t.Error(err)
		}
	default:
		t.Fatalf("unknown mode %q", mode)
	}
}

// A process stalled inside plan a's lock holds up writes to a in this process, and the
// folder lock, but never writes to b; its lock ends with it, when it exits or is killed.
func TestPlanLockAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprintf("kill=%v", kill), func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			lb := newLocal(t, root)
			s := mustStore(t, StoreConfig{Backend: lb, HistoryLimit: 5})
			child := childtest.Start(t, "TestPlanLockChildProcess", lockChildEnv("stall", root))
			line, err := child.Stdout.ReadString('\n')
			require.NoError(t, err, "child:\n%s", child.Stderr())
			require.Equal(t, "held\n", line)

			bctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			p, err := s.Put(bctx, Update{Name: "b", Content: ptrTo("- [ ] b\n"), IfRevision: ptrTo(int64(0))})
			require.NoError(t, err, "a write to b waited for the child's lock on a")
			_, err = s.Delete(bctx, "b", &p.Revision)
			require.NoError(t, err)

			short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
			_, err = s.Put(short, Update{Name: "a", Content: ptrTo("from the parent\n")})
			cancelShort()
			assert.Equal(t, document.CodeCanceled, document.CodeOf(err), "a write to a while another process holds its lock")
			short, cancelShort = context.WithTimeout(ctx, 100*time.Millisecond)
			_, err = lb.Lock(short, "/plans")
			cancelShort()
			assert.ErrorIs(t, err, context.DeadlineExceeded, "the folder lock waits for a plan lock")

			want := "from the child\n"
			if kill {
				require.NoError(t, child.Cmd.Process.Kill())
				want = "from the parent\n"
			} else {
				require.NoError(t, child.Stdin.Close())
			}
			err = child.Wait()
			if !kill {
				require.NoError(t, err, "child")
			}
			_, err = s.Put(bctx, Update{Name: "a", Content: ptrTo("from the parent\n"), IfRevision: ptrTo(int64(0))})
			if kill {
				require.NoError(t, err, "a killed holder leaves the plan unlocked and unwritten")
			} else {
				assert.Equal(t, document.CodeRevisionConflict, document.CodeOf(err), "the child's create landed first")
			}
			a, err := s.Get(ctx, "a")
			require.NoError(t, err)
			assert.Equal(t, want, a.Content)
			assert.Equal(t, int64(1), a.Revision)
		})
	}
}

// Processes making guarded increments of one shared plan and of plans of their own, all at
// once: no update is lost on any of them.
func TestPlanLocksMixedProcesses(t *testing.T) {
	root, s := processStore(t, StoreConfig{HistoryLimit: 5})
	ctx := context.Background()
	_, err := s.Put(ctx, Update{Name: "counter", Content: ptrTo("0")})
	require.NoError(t, err)
	children := childtest.Run(t, "TestPlanLockChildProcess", lockChildEnv("mixed", root), mixedProcesses)
	for i, c := range children {
		assert.NoError(t, c.Wait(), "child %d", i)
	}
	total := mixedProcesses * mixedWorkers * mixedIncrements
	got, err := s.Get(ctx, "counter")
	require.NoError(t, err)
	assert.EqualValues(t, 1+total, got.Revision)
	assert.Equal(t, fmt.Sprint(total), got.Content)
	for i := range mixedProcesses {
		for w := range mixedWorkers {
			p, err := s.Get(ctx, fmt.Sprintf("own-%d-%d", i, w))
			require.NoError(t, err)
			assert.EqualValues(t, 1+mixedIncrements, p.Revision)
			assert.Equal(t, fmt.Sprint(mixedIncrements), p.Content)
		}
	}
	hist, err := s.History(ctx, "counter")
	require.NoError(t, err)
	assert.Len(t, hist, 5, "history stays within its limit")
	assert.EqualValues(t, 1+total, hist[0].Revision)
}
