//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package engine

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/internal/childtest"
	"github.com/einoplan/plan/internal/document"
)

const historyChildEnv = "PLAN_HISTORY_CHILD"

// TestHistoryChildProcess is the writer side of TestHistoryAcrossProcesses: given
// "ROOT WORKER N", it prints "ready", waits for a line, then sets the status of plan "ship"
// N times, to WORKER-1 ... WORKER-N.
func TestHistoryChildProcess(t *testing.T) {
	childtest.SkipUnlessChild(t)
	spec := os.Getenv(historyChildEnv)
	var root, worker string
	var n int
	_, err := fmt.Sscan(spec, &root, &worker, &n)
	require.NoError(t, err)
	s := mustStore(t, StoreConfig{Backend: newLocal(t, root), HistoryLimit: DefaultHistoryLimit})
	fmt.Println("ready")
	_, err = bufio.NewReader(os.Stdin).ReadString('\n')
	require.NoError(t, err)
	for i := 1; i <= n; i++ {
		_, err := s.SetStatus(context.Background(), "ship", fmt.Sprintf("%s-%d", worker, i), nil)
		require.NoError(t, err)
	}
}

// Two processes write one plan on one LocalBackend folder at once; a third reads the
// history they left: bounded, newest first, every revision as its writer made it.
func TestHistoryAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := mustStore(t, StoreConfig{Backend: newLocal(t, root), HistoryLimit: DefaultHistoryLimit})
	_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo("- [ ] build\n"), Status: "p-0"})
	require.NoError(t, err)

	const writes = 30
	var children []*childtest.Child
	for _, w := range []string{"a", "b"} {
		c := childtest.Start(t, "TestHistoryChildProcess", map[string]string{historyChildEnv: fmt.Sprintf("%s %s %d", root, w, writes)})
		line, err := c.Stdout.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "ready\n", line)
		children = append(children, c)
	}
	for _, c := range children {
		_, err := io.WriteString(c.Stdin, "go\n")
		require.NoError(t, err)
	}
	for _, c := range children {
		require.NoError(t, c.Wait())
	}

	h, err := s.History(ctx, "ship")
	require.NoError(t, err)
	require.Len(t, h, DefaultHistoryLimit)
	last := map[string]int{}
	for i, r := range h {
		assert.EqualValues(t, 1+2*writes-i, r.Revision)
		assert.Equal(t, document.ActionStatus, r.Action)
		p, err := s.GetRevision(ctx, "ship", r.Revision)
		require.NoError(t, err)
		assert.Equal(t, r.Status, p.Status)
		who, n, _ := strings.Cut(r.Status, "-")
		k, _ := strconv.Atoi(n)
		if prev, ok := last[who]; ok {
			assert.Less(t, k, prev, "revision %d", r.Revision)
		}
		last[who] = k
	}
	assert.Len(t, last, 2, "both processes' writes are in the history")
}
