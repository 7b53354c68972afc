package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// lockedBuffer is an output that a test reads while planctl writes to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// watching runs planctl watch with args until the returned stop is called, which returns
// the exit status.
func watching(t *testing.T, out *lockedBuffer, args ...string) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- (&cli{ctx: ctx, stdin: strings.NewReader(""), stdout: out, stderr: &stderr}).run(append(args, "watch"))
	}()
	return func() int {
		cancel()
		select {
		case code := <-done:
			assert.Empty(t, stderr.String())
			return code
		case <-time.After(10 * time.Second):
			t.Fatal("watch did not end after its context")
			return -1
		}
	}
}

// waitFor polls get until it matches re, failing after 20 seconds with the last text.
func waitFor(t *testing.T, what string, get func() string, re string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := get()
		if rx.MatchString(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never matched %q; last:\n%s", what, re, s)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// Not on a terminal, watch prints one plain line per plan, then one per change, whoever
// makes it.
func TestWatchPlainLines(t *testing.T) {
	dir := newDir(t)
	var out lockedBuffer
	stop := watching(t, &out, "-dir", dir)
	waitFor(t, "output", out.String, `^\d\d:\d\d:\d\d ship: \[#####-----\] 2/4  50%, draft, revision 1, doing 2: Test, by planctl\n$`)

	backend, err := plan.NewLocalBackend(filepath.Dir(dir))
	require.NoError(t, err)
	defer backend.Close()
	agent, err := plan.NewStore(&plan.StoreConfig{Backend: backend, DefaultAuthor: "worker"})
	require.NoError(t, err)
	ctx := context.Background()
	_, _, err = agent.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 2, State: plan.StepCompleted})
	require.NoError(t, err)
	waitFor(t, "output", out.String, `\n\d\d:\d\d:\d\d ship: \[#######---\] 3/4  75%, draft, revision 2, next 3: Tag, by planctl\n$`)
	_, err = agent.Put(ctx, plan.Update{Name: "docs", Content: ptr("- [ ] Write\n")})
	require.NoError(t, err)
	waitFor(t, "output", out.String, `\n\d\d:\d\d:\d\d docs: \[----------\] 0/1   0%, draft, revision 1, next 1: Write, by worker\n$`)
	_, err = agent.Delete(ctx, "ship", nil)
	require.NoError(t, err)
	waitFor(t, "output", out.String, `\n\d\d:\d\d:\d\d ship: removed at revision 2\n$`)
	assert.Equal(t, exitOK, stop())
	assert.Equal(t, 4, strings.Count(out.String(), "\n"), "one line per change, nothing repeated:\n%s", out.String())
}

func ptr[T any](v T) *T { return &v }

// Given the folder above the plans folder, watch says where the plans are instead of
// waiting on an empty folder.
func TestWatchWrongDir(t *testing.T) {
	dir := newDir(t)
	root := filepath.Dir(dir)
	wantPlansFolderSuggested(t, dir, "watch")

	missing := filepath.Join(root, "nowhere")
	wantExit(t, exitFailed, missing+" does not exist", "-dir", missing, "watch")
}

func TestRowShowsStepAndAuthor(t *testing.T) {
	sum := plan.Summarize(&plan.Plan{Name: "a", Status: "in\x1b[2Jprogress", Author: "w", Revision: 4,
		Content: "- [x] one\n- [~] two\n- [ ] three\n"})
	assert.Equal(t, []string{"a", "[###-------] 1/3  33%", "in [2Jprogress", "4", "doing 2: two", "w"}, langEN.row(sum, ""))
	sum = plan.Summarize(&plan.Plan{Name: "b", Content: "no steps"})
	assert.Equal(t, []string{"b", "no steps", "", "0", "-", "-"}, langEN.row(sum, ""))
	sum = plan.Summarize(&plan.Plan{Name: "c", Author: "x", Content: "- [x] a\n- [-] b\n"})
	assert.Equal(t, "all steps over", langEN.row(sum, "")[4])
}
