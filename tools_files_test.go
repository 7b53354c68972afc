package plan_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// With the plans folder inside the Workspace (two LocalBackends, the Backend's root under the
// Workspace's root), the file tools refuse paths inside the plans folder: export_plan_to_file
// cannot overwrite another plan's file behind its revisions.
func TestFileToolsRefuseThePlansFolderInsideTheWorkspace(t *testing.T) {
	ctx := context.Background()
	project := t.TempDir()
	plans := newLocal(t, filepath.Join(project, ".plans"))
	ws := newLocal(t, project)
	s := storeOn(t, plans, "")
	_, err := s.Put(ctx, plan.Update{Name: "victim", Content: ptrTo("- [ ] real work\n")})
	require.NoError(t, err)
	forged := "---\ntitle: \"forged\"\nstatus: \"done\"\nauthor: \"x\"\nrevision: 99\nupdated_at: \"2026-01-01T00:00:00Z\"\n---\n- [x] nothing to do\n"
	_, err = s.Put(ctx, plan.Update{Name: "evil", Content: &forged})
	require.NoError(t, err)

	mw, err := plan.New(ctx, &plan.Config{Store: s, Workspace: ws})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("export_plan_to_file", `{"name":"evil","path":"/.plans/plans/victim.md"}`),
		plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	t.Log(results[0])
	assert.Equal(t, "invalid_argument", errorCode(t, results[0]), "paths inside the plans folder are refused")
	p, err := s.Get(ctx, "victim")
	require.NoError(t, err)
	assert.Equal(t, "- [ ] real work\n", p.Content)
}

// stuckWriter is a Workspace whose Write ignores the context, as eino-ext local's does on
// a named pipe (os.WriteFile blocks in open until a reader comes).
type stuckWriter struct {
	plan.Workspace
	release chan struct{}
}

func (w stuckWriter) Write(context.Context, *plan.WriteRequest) error { <-w.release; return nil }

// export_plan_to_file returns when the run's context ends, even if the Workspace's Write
// ignores the context.
func TestExportReturnsWhenTheContextEnds(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	s := storeOn(t, mem, "")
	_, err := s.Put(ctx, plan.Update{Name: "p", Content: ptrTo("- [ ] x\n")})
	require.NoError(t, err)
	ws := stuckWriter{plan.NewMemoryBackend(), make(chan struct{})}
	defer close(ws.release)
	mw, err := plan.New(ctx, &plan.Config{Store: s, Workspace: ws})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "a", Description: "a",
		Model:    plantest.NewScriptedModel(plantest.CallTool("export_plan_to_file", `{"name":"p","path":"/work/p.md"}`)),
		Handlers: []adk.ChatModelAgentMiddleware{mw}})
	require.NoError(t, err)
	runCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() {
		iter := adk.NewRunner(runCtx, adk.RunnerConfig{Agent: agent}).Query(runCtx, "go")
		for _, ok := iter.Next(); ok; _, ok = iter.Next() {
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("the run is still blocked in export_plan_to_file 2.8 s after its context ended")
	}
}

// update_plan_from_file on a file that is not UTF-8 text says which file is at fault.
func TestFileNotUTF8MessageNamesTheFile(t *testing.T) {
	ctx := context.Background()
	ws := plan.NewMemoryBackend()
	require.NoError(t, ws.Write(ctx, &plan.WriteRequest{FilePath: "/work/p.md", Content: "- [ ] caf\xe9\n"}))
	require.NoError(t, ws.Write(ctx, &plan.WriteRequest{FilePath: "/work/empty.md", Content: "\n"}))
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: ws})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_from_file", `{"name":"p","path":"/work/p.md"}`),
		plantest.CallTool("update_plan_from_file", `{"name":"p","path":"/work/empty.md"}`),
		plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	for _, r := range results {
		t.Log(r)
		assert.Contains(t, r, "/work/", "the message names the file at fault")
	}
}
