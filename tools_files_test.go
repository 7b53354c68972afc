package plan_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/schema"
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
	_, err := s.Put(ctx, plan.Update{Name: "victim", Content: ptr("- [ ] real work\n")})
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
	driver.Workspace
	release chan struct{}
}

func (w stuckWriter) Write(context.Context, *driver.WriteRequest) error { <-w.release; return nil }

// export_plan_to_file returns when the run's context ends, even if the Workspace's Write
// ignores the context.
func TestExportReturnsWhenTheContextEnds(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	s := storeOn(t, mem, "")
	_, err := s.Put(ctx, plan.Update{Name: "p", Content: ptr("- [ ] x\n")})
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
	require.NoError(t, ws.Write(ctx, &driver.WriteRequest{FilePath: "/work/p.md", Content: "- [ ] caf\xe9\n"}))
	require.NoError(t, ws.Write(ctx, &driver.WriteRequest{FilePath: "/work/empty.md", Content: "\n"}))
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

// With Workspace and Backend one LocalBackend, the file tools refuse every spelling of a path
// into the plans folder (plan files, tombstones, the lock), want absolute paths, and leave
// revisions going on after a delete.
func TestWorkspaceThatIsThePlanStorageKeepsOutOfThePlansFolder(t *testing.T) {
	ctx := context.Background()
	lb := newLocal(t, t.TempDir())
	mw, err := plan.New(ctx, &plan.Config{Backend: lb, Workspace: lb})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	call := func(name, args string) string {
		out, err := tools[name].InvokableRun(ctx, args)
		require.NoError(t, err)
		return out
	}
	assert.Contains(t, call("write_plan", `{"name":"victim","content":"- [ ] a\n"}`), `"revision":1`)
	for i := 0; i < 4; i++ {
		call("update_plan_step", `{"name":"victim","step":1,"status":"in_progress"}`)
		call("update_plan_step", `{"name":"victim","step":1,"status":"pending"}`)
	}
	for _, path := range []string{"/plans/victim.md", "/plans/.deleted/victim", "/plans/.plan.lock", "plans/victim.md", "/plans", "/plans/sub/x.md", "//plans/./victim.md"} {
		out := call("export_plan_to_file", fmt.Sprintf(`{"name":"victim","path":%q}`, path))
		assert.Contains(t, out, `"invalid_argument"`, path)
		out = call("update_plan_from_file", fmt.Sprintf(`{"name":"victim","path":%q}`, path))
		assert.Contains(t, out, `"invalid_argument"`, path)
	}
	assert.Contains(t, call("export_plan_to_file", `{"name":"victim","path":"work/v.md"}`), "absolute")
	assert.Contains(t, call("export_plan_to_file", `{"name":"victim","file_path":"/work/v.md"}`), `"bytes"`, "file_path is accepted for path")
	assert.Contains(t, call("read_plan", `{"name":"victim"}`), `"revision":`)
	p, err := plan.NewStore(&plan.StoreConfig{Backend: lb})
	require.NoError(t, err)
	got, err := p.Get(ctx, "victim")
	require.NoError(t, err)
	rev := got.Revision
	call("delete_plan", `{"name":"victim"}`)
	assert.Contains(t, call("write_plan", `{"name":"victim","content":"- [ ] b\n"}`), fmt.Sprintf(`"revision":%d`, rev+1), "revisions go on after delete")
}

// The file tools keep out of every plans folder on their storage, not only their own: with
// team plans in /team and personal ones in /mine on one LocalBackend that is also the
// Workspace, the personal middleware's export cannot overwrite a team plan, on the same
// storage or through a second LocalBackend on the same root.
func TestFileToolsKeepOutOfAnotherStoresPlansFolder(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	lb := newLocal(t, root)
	team := storeOn(t, lb, "/team")
	_, err := team.Put(ctx, plan.Update{Name: "victim", Content: ptr("- [ ] real work\n")})
	require.NoError(t, err)
	for _, ws := range []driver.Workspace{lb, newLocal(t, root)} {
		mine, err := plan.New(ctx, &plan.Config{Backend: lb, BaseDir: "/mine", Workspace: ws, ToolPrefix: "my_"})
		require.NoError(t, err)
		_, err = storeOn(t, lb, "/mine").Put(ctx, plan.Update{Name: "note", Content: ptr("- [x] nothing\n")})
		require.NoError(t, err)
		ctx2, _, tools := beforeAgentTools(t, ctx, mine)
		out, err := tools["my_export_plan_to_file"].InvokableRun(ctx2, `{"name":"note","path":"/team/victim.md"}`)
		require.NoError(t, err)
		assert.Equal(t, "invalid_argument", errorCode(t, out), out)
		out, err = tools["my_export_plan_to_file"].InvokableRun(ctx2, `{"name":"note","path":"/work/note.md"}`)
		require.NoError(t, err)
		assert.Equal(t, "", errorCode(t, out), out)
	}
	p, err := team.Get(ctx, "victim")
	require.NoError(t, err)
	assert.Equal(t, "- [ ] real work\n", p.Content)
}

// readFileWorkspace reads with os.ReadFile, which blocks on a named pipe: it offers no
// bounded read and ignores the context.
type readFileWorkspace struct{ dir string }

func (w readFileWorkspace) Read(_ context.Context, req *driver.ReadRequest) (*driver.FileContent, error) {
	data, err := os.ReadFile(filepath.Join(w.dir, req.FilePath))
	if err != nil {
		return nil, err
	}
	return &driver.FileContent{Content: string(data)}, nil
}

func (w readFileWorkspace) Write(_ context.Context, req *driver.WriteRequest) error {
	return os.WriteFile(filepath.Join(w.dir, req.FilePath), []byte(req.Content), 0o600)
}

// TestExportEditUpdateWithEinoWorkspace runs the cheap edit loop on Eino's own in-memory
// file system, the one Eino's file tools use: export, edit the file, update from it.
func TestExportEditUpdateWithEinoWorkspace(t *testing.T) {
	ctx := context.Background()
	ws := filesystem.NewInMemoryBackend()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, Workspace: ws})
	require.NoError(t, err)
	editFile := func([]*schema.Message) *schema.Message {
		// What the agent's edit_file tool would do.
		require.NoError(t, ws.Edit(ctx, &filesystem.EditRequest{FilePath: "/notes/plan.md", OldString: "- [ ] b", NewString: "- [ ] b\n- [ ] c"}))
		return plantest.CallTool("update_plan_from_file", `{"name":"loop","path":"/notes/plan.md","last_known_revision":1}`)(nil)
	}
	m := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"loop","content":"# Loop\n- [ ] a\n- [ ] b\n"}`),
		plantest.CallTool("export_plan_to_file", `{"name":"loop","path":"/notes/plan.md"}`),
		editFile,
		plantest.CallTool("update_plan_from_file", `{"name":"loop","path":"/notes"}`),
		plantest.CallTool("update_plan_from_file", `{"name":"loop","path":"/notes/plan.md","last_known_revision":1}`),
	)
	results := toolResults(runAgent(t, m, mw))
	require.Len(t, results, 5)
	assert.JSONEq(t, `{"name":"loop","path":"/notes/plan.md","revision":1,"bytes":23}`, results[1])
	assert.Equal(t, "", errorCode(t, results[2]), results[2])
	assert.Contains(t, results[2], `"total":3`)
	assert.NotEqual(t, "", errorCode(t, results[3]), "a directory is not a plan file")
	assert.Equal(t, "revision_conflict", errorCode(t, results[4]), "the file was exported at revision 1; the plan moved on")

	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	p, err := store.Get(ctx, "loop")
	require.NoError(t, err)
	assert.EqualValues(t, 2, p.Revision)
	assert.Equal(t, "# Loop\n- [ ] a\n- [ ] b\n- [ ] c\n", p.Content)
}

// With the Workspace the plans' own storage, the file tools never reach the approval key
// beside the plans folder: export cannot overwrite it and update cannot read it into a plan.
func TestPlanFileToolsNeverReachTheApprovalKey(t *testing.T) {
	ctx := context.Background()
	lb := newLocal(t, t.TempDir())
	store, err := plan.NewStore(&plan.StoreConfig{Backend: lb})
	require.NoError(t, err)
	_, err = store.Put(ctx, plan.Update{Name: "p", Content: ptr("- [ ] a\n")})
	require.NoError(t, err)
	_, err = store.Approve(ctx, "p", 1, "ana")
	require.NoError(t, err)
	before, err := os.ReadFile(filepath.Join(lb.Root(), ".plans.approval-key"))
	require.NoError(t, err)

	mw, err := plan.New(ctx, &plan.Config{Store: store, Workspace: lb})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	for _, tool := range []string{"export_plan_to_file", "update_plan_from_file"} {
		out, err := tools[tool].InvokableRun(ctx, `{"name":"p","path":"/.plans.approval-key"}`)
		require.NoError(t, err)
		assert.Equal(t, "invalid_argument", errorCode(t, out), out)
	}
	after, err := os.ReadFile(filepath.Join(lb.Root(), ".plans.approval-key"))
	require.NoError(t, err)
	assert.Equal(t, before, after)
	got, err := store.Get(ctx, "p")
	require.NoError(t, err)
	assert.EqualValues(t, 2, got.Revision, "the plan is as approved")
	assert.NotNil(t, got.Approval)
}
