//go:build linux

package plan_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan/driver/drivertest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// A test binary re-executed with these variables set runs TestPlanLockChildProcess as a
// worker on the given root instead of skipping it.
const (
	planLockModeEnv = "PLAN_LOCK_CHILD_MODE"
	planLockRootEnv = "PLAN_LOCK_CHILD_ROOT"
	planLockProcEnv = "PLAN_LOCK_CHILD_PROC"
)

const (
	mixedProcesses  = 3
	mixedWorkers    = 4
	mixedIncrements = 15
)

// stallingLocal is a LocalBackend whose first write of a.md says "held" on stdout and then
// waits until stdin closes: a process stalled inside plan a's lock.
type stallingLocal struct {
	*plan.LocalBackend
	once sync.Once
}

func (s *stallingLocal) Write(ctx context.Context, req *plan.WriteRequest) error {
	if strings.HasSuffix(req.FilePath, "/a.md") {
		s.once.Do(func() {
			fmt.Println("held")
			_, _ = io.Copy(io.Discard, os.Stdin)
		})
	}
	return s.LocalBackend.Write(ctx, req)
}

type lockChild struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	stdin  io.WriteCloser
	stdout *bufio.Reader
}

func startLockChild(t *testing.T, mode, root string, proc int) *lockChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPlanLockChildProcess$", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), planLockModeEnv+"="+mode, planLockRootEnv+"="+root, fmt.Sprint(planLockProcEnv, "=", proc))
	c := &lockChild{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = c.stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c.stdin, c.stdout = stdin, bufio.NewReader(stdout)
	return c
}

// TestPlanLockChildProcess is the worker side of the per-plan lock tests.
func TestPlanLockChildProcess(t *testing.T) {
	mode, root := os.Getenv(planLockModeEnv), os.Getenv(planLockRootEnv)
	if mode == "" {
		t.Skip("runs only as a child of the per-plan lock tests")
	}
	ctx := context.Background()
	switch mode {
	case "stall":
		s, err := plan.NewStore(&plan.StoreConfig{Backend: &stallingLocal{LocalBackend: newLocal(t, root)}, HistoryLimit: 5})
		require.NoError(t, err)
		_, err = s.Put(ctx, plan.Update{Name: "a", Content: ptr("from the child\n"), IfRevision: ptr(int64(0))})
		require.NoError(t, err)
	case "mixed":
		s, err := plan.NewStore(&plan.StoreConfig{Backend: newLocal(t, root), HistoryLimit: 5})
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make(chan error, 2*mixedWorkers)
		for w := range mixedWorkers {
			own := fmt.Sprintf("own-%s-%d", os.Getenv(planLockProcEnv), w)
			for _, name := range []string{"counter", own} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if name == own {
						if _, err := s.Put(ctx, plan.Update{Name: own, Content: ptr("0"), IfRevision: ptr(int64(0))}); err != nil {
							errs <- err
							return
						}
					}
					if err := drivertest.GuardedIncrements(ctx, s, name, mixedIncrements); err != nil {
						errs <- err
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
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
			s, err := plan.NewStore(&plan.StoreConfig{Backend: lb, HistoryLimit: 5})
			require.NoError(t, err)
			child := startLockChild(t, "stall", root, 0)
			line, err := child.stdout.ReadString('\n')
			require.NoError(t, err, "child:\n%s", child.stderr)
			require.Equal(t, "held\n", line)

			bctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			p, err := s.Put(bctx, plan.Update{Name: "b", Content: ptr("- [ ] b\n"), IfRevision: ptr(int64(0))})
			require.NoError(t, err, "a write to b waited for the child's lock on a")
			_, err = s.Delete(bctx, "b", &p.Revision)
			require.NoError(t, err)

			short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
			_, err = s.Put(short, plan.Update{Name: "a", Content: ptr("from the parent\n")})
			cancelShort()
			assert.Equal(t, plan.CodeCanceled, plan.CodeOf(err), "a write to a while another process holds its lock")
			short, cancelShort = context.WithTimeout(ctx, 100*time.Millisecond)
			_, err = lb.Lock(short, "/plans")
			cancelShort()
			assert.ErrorIs(t, err, context.DeadlineExceeded, "the folder lock waits for a plan lock")

			want := "from the child\n"
			if kill {
				require.NoError(t, child.cmd.Process.Kill())
				want = "from the parent\n"
			} else {
				require.NoError(t, child.stdin.Close())
			}
			err = child.cmd.Wait()
			if !kill {
				require.NoError(t, err, "child:\n%s", child.stderr)
			}
			_, err = s.Put(bctx, plan.Update{Name: "a", Content: ptr("from the parent\n"), IfRevision: ptr(int64(0))})
			if kill {
				require.NoError(t, err, "a killed holder leaves the plan unlocked and unwritten")
			} else {
				assert.Equal(t, plan.CodeRevisionConflict, plan.CodeOf(err), "the child's create landed first")
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
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := context.Background()
	root := t.TempDir()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: newLocal(t, root), HistoryLimit: 5})
	require.NoError(t, err)
	_, err = s.Put(ctx, plan.Update{Name: "counter", Content: ptr("0")})
	require.NoError(t, err)
	var children []*lockChild
	for i := range mixedProcesses {
		children = append(children, startLockChild(t, "mixed", root, i))
	}
	for i, c := range children {
		assert.NoError(t, c.cmd.Wait(), "child %d:\n%s", i, c.stderr)
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
