//go:build linux

package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// With Backend and Workspace one LocalBackend, export_plan_to_file through a symbolic link
// that leads into the plans folder never overwrites a plan behind the Store's back.
func TestExportThroughALinkNeverOverwritesAPlan(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	b := newLocal(t, root)
	s := storeOn(t, b, "")
	_, err := s.Put(ctx, plan.Update{Name: "victim", Content: ptr("- [ ] real work\n")})
	require.NoError(t, err)
	_, err = s.Put(ctx, plan.Update{Name: "evil", Content: ptr("not a plan header\n")})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "work"), 0o700))
	require.NoError(t, os.Symlink("../plans", filepath.Join(root, "work", "notes")))
	mw, err := plan.New(ctx, &plan.Config{Store: s, Workspace: b})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("export_plan_to_file", `{"name":"evil","path":"/work/notes/victim.md"}`), plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	t.Log(results[0])
	_, err = s.Get(ctx, "victim")
	assert.NoError(t, err, "the plan was not overwritten behind the Store's back")
}

// update_plan_from_file returns canceled at the context's deadline even when the Workspace's
// Read blocks and ignores the context (a named pipe read with os.ReadFile).
func TestWorkspaceReadHonoursTheDeadline(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o600))
	t.Cleanup(func() { // unblock the abandoned read
		if f, err := os.OpenFile(filepath.Join(dir, "pipe.md"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	mw, err := plan.New(context.Background(), &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: readFileWorkspace{dir}})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, context.Background(), mw)
	ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := tools["update_plan_from_file"].InvokableRun(ctx, `{"name":"p","path":"/pipe.md"}`)
	require.NoError(t, err)
	assert.Contains(t, out, `"canceled"`)
	assert.Less(t, time.Since(start), 600*time.Millisecond, "returns within 100 ms of the deadline")
}
