//go:build unix

package einoext_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// TestWorkspaceNamedPipeHonoursTheContext: eino-ext's Read blocks on a named pipe until a
// writer opens it, and ignores the context meanwhile. update_plan_from_file still returns
// when the run's context ends, and the plan is left as it was.
func TestWorkspaceNamedPipeHonoursTheContext(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "plan.md")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	_, err = store.Put(context.Background(), plan.Update{Name: "ship", Content: ptr("- [ ] a\n")})
	require.NoError(t, err)
	mw, err := plan.New(context.Background(), &plan.Config{Store: store, Workspace: newLocal(t)})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name: "planner", Description: "plans", Instruction: "You plan.", Handlers: []adk.ChatModelAgentMiddleware{mw},
		Model: plantest.NewScriptedModel(plantest.CallTool("update_plan_from_file",
			jsonArgs(t, map[string]any{"name": "ship", "path": fifo}))),
	})
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
		for {
			if _, ok := iter.Next(); !ok {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end when its context did")
	}
	// The tool did reach the pipe: a reader is still waiting in it (a writer opening without
	// blocking finds one), and opening it releases that abandoned read.
	w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	require.NoError(t, err, "no read was waiting in the pipe")
	require.NoError(t, w.Close())
	got, err := store.Get(context.Background(), "ship")
	require.NoError(t, err)
	require.EqualValues(t, 1, got.Revision)
	require.Equal(t, "- [ ] a\n", got.Content)
}

func ptr[T any](v T) *T { return &v }
