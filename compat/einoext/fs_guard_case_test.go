package einoext_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/childtest"
	"github.com/einoplan/plan/plantest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a file system that ignores case (macOS, Windows), ".PLANS/PLANS/x.md" is the plan file
// and ".PLANS/.PLANS.APPROVAL-KEY" the key: the guard refuses the plans folder and the key
// whatever the case of the path naming them, and a grep of the project in another case.
func TestEinoFileToolsRefuseThePlansAndTheKeyInAnyCase(t *testing.T) {
	c := newCoder(t)
	c.approved(t, "readme", "# Readme\n- [ ] Fix a typo\n")
	key := c.keyFile(t)
	upper := func(p string) string {
		rel, err := filepath.Rel(c.project, p)
		require.NoError(t, err)
		return filepath.Join(c.project, strings.ToUpper(rel))
	}
	results := c.run(t,
		call(t, "read_file", map[string]any{"file_path": upper(key)}),
		call(t, "write_file", map[string]any{"file_path": upper(c.planFile("readme")), "content": "- [x] Fix a typo\n"}),
		call(t, "write_file", map[string]any{"file_path": upper(key), "content": strings.Repeat("00", 32)}),
		call(t, "ls", map[string]any{"path": upper(filepath.Join(c.root, "plans"))}),
		call(t, "grep", map[string]any{"pattern": "[0-9a-f]", "path": strings.ToUpper(c.project)}),
	)
	require.Len(t, results, 5, results)
	for _, r := range results[:4] {
		refused(t, r, "plans_off_limits")
	}
	refused(t, results[4], "search_covers_plans")
}

// Eino's filesystem tools renamed by the host (ToolConfig.Name), the filesystem middleware
// before the plan middleware as docs/plan-mode.md sets them up, are judged as the tools they
// are: "Read" of the key and "Write" of a plan file are refused, "Read" of another file runs.
func TestEinoRenamedFileToolsAreGuardedAsTheToolsTheyAre(t *testing.T) {
	ctx := context.Background()
	c, key, secret := withKey(t, "readme", "# Readme\n- [ ] Fix a typo\n")

	mw, err := plan.New(ctx, &plan.Config{Store: c.store, AgentName: "coder"})
	require.NoError(t, err)
	files, err := fsmw.New(ctx, &fsmw.MiddlewareConfig{Backend: newLocal(t),
		ReadFileToolConfig: &fsmw.ToolConfig{Name: "Read"}, WriteFileToolConfig: &fsmw.ToolConfig{Name: "Write"}})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		call(t, "Read", map[string]any{"file_path": key}),
		call(t, "Write", map[string]any{"file_path": c.planFile("readme"), "content": "- [x] Fix a typo\n"}),
		call(t, "Read", map[string]any{"file_path": filepath.Join(c.project, "main.go")}),
	)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "coder", Description: "codes", Instruction: "You code.",
		Model: model, Handlers: []adk.ChatModelAgentMiddleware{files, mw},
	})
	require.NoError(t, err)
	results := plantest.RunAgent(t, ctx, agent, "go")
	require.Len(t, results, 3, results)
	refused(t, results[0], "plans_off_limits")
	assert.NotContains(t, results[0], strings.TrimSpace(string(secret)))
	refused(t, results[1], "plans_off_limits")
	assert.Contains(t, results[2], "package main", "other files read as ever")
}

// foreignSet is a plan set another process keeps on the coder's storage: the folder /team of
// the same LocalBackend root, with an approved plan, written by a child process so that no
// Store of this process knows it.
type foreignSet struct {
	folder, key string
}

func (f foreignSet) planFile(name string) string { return filepath.Join(f.folder, name+".md") }

func newForeignSet(t *testing.T, root string) foreignSet {
	t.Helper()
	child := childtest.Start(t, "TestForeignPlanSetChild", map[string]string{"PLAN_ROOT": root})
	require.NoError(t, child.Wait(), child.Stderr())
	f := foreignSet{folder: filepath.Join(root, "team"), key: filepath.Join(root, ".team.approval-key")}
	_, err := os.Stat(f.key)
	require.NoError(t, err, "the other process sealed an approval")
	return f
}

// TestForeignPlanSetChild is the other process: it writes and approves plan deploy in /team.
func TestForeignPlanSetChild(t *testing.T) {
	childtest.SkipUnlessChild(t)
	ctx := context.Background()
	backend, err := plan.NewLocalBackend(os.Getenv("PLAN_ROOT"))
	require.NoError(t, err)
	defer backend.Close()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend, BaseDir: "/team"})
	require.NoError(t, err)
	body := "# Deploy\n- [ ] Deploy to prod (uses deploy_prod)\n"
	p, err := store.Put(ctx, plan.Update{Name: "deploy", Content: &body})
	require.NoError(t, err)
	_, err = store.Approve(ctx, "deploy", p.Revision, "ana")
	require.NoError(t, err)
}

// Eino's file tools keep out of another process's plans folder on the same storage, known by
// its layout: read_file of its key, edit_file and write_file of its plan files, and a grep of
// its folder are refused, and neither the key nor the plan changes hands.
func TestFileToolsKeepOutOfAnotherProcesssPlansFolder(t *testing.T) {
	c := newCoder(t)
	c.approved(t, "readme", "# Readme\n- [ ] Fix a typo\n")
	team := newForeignSet(t, c.root)
	secret, err := os.ReadFile(team.key)
	require.NoError(t, err)
	before, err := os.ReadFile(team.planFile("deploy"))
	require.NoError(t, err)

	results := c.run(t,
		call(t, "read_file", map[string]any{"file_path": team.key}),
		call(t, "edit_file", map[string]any{"file_path": team.planFile("deploy"), "old_string": "- [ ] Deploy", "new_string": "- [x] Deploy"}),
		call(t, "write_file", map[string]any{"file_path": team.planFile("other"), "content": "# Other\n- [ ] x\n"}),
		call(t, "read_file", map[string]any{"file_path": team.planFile("deploy")}),
		call(t, "grep", map[string]any{"pattern": "[0-9a-f]", "path": team.folder}),
		call(t, "write_file", map[string]any{"file_path": filepath.Join(c.root, ".ops.approval-key"), "content": strings.Repeat("ab", 32)}),
	)
	allRefused(t, results, 6)
	assert.NotContains(t, results[0], strings.TrimSpace(string(secret)))
	unchanged(t, team.planFile("deploy"), before)
	_, err = os.Stat(team.planFile("other"))
	assert.True(t, os.IsNotExist(err), "nothing was written into the other folder")
	_, err = os.Stat(filepath.Join(c.root, ".ops.approval-key"))
	assert.True(t, os.IsNotExist(err), "no key was planted")
}

// The plan tools keep out of it too: update_plan_from_file cannot copy the other set's key
// into a plan, and export_plan_to_file cannot overwrite one of its plans.
func TestPlanFileToolsKeepOutOfAnotherProcesssPlansFolder(t *testing.T) {
	ctx := context.Background()
	c := newCoder(t)
	c.approved(t, "readme", "# Readme\n- [ ] Fix a typo\n")
	team := newForeignSet(t, c.root)
	before, err := os.ReadFile(team.planFile("deploy"))
	require.NoError(t, err)

	results := runAgent(t, &plan.Config{Store: c.store, AgentName: "coder", Workspace: newLocal(t)},
		plantest.CallTool("update_plan_from_file", jsonArgs(t, map[string]any{"name": "stolen", "file_path": team.key, "last_known_revision": 0})),
		plantest.CallTool("export_plan_to_file", jsonArgs(t, map[string]any{"name": "readme", "path": team.planFile("deploy")})),
	)
	for _, r := range results {
		assert.Equal(t, "invalid_argument", errorCode(t, r), r)
	}
	_, err = c.store.Get(ctx, "stolen")
	assert.Error(t, err, "no plan holds the key")
	unchanged(t, team.planFile("deploy"), before)
}

// A hard link is the file it links: read_file and grep of a hard link of the key, and
// read_file and edit_file of a hard link of a plan file, are refused wherever the link is.
func TestFileToolsRefuseHardLinksOfTheKeyAndOfPlanFiles(t *testing.T) {
	c, key, secret := withKey(t, "release", "# Release\n- [ ] Build\n")
	keyLink := filepath.Join(c.project, "notes.txt")
	planLink := filepath.Join(c.project, "todo.md")
	require.NoError(t, os.Link(key, keyLink))
	require.NoError(t, os.Link(c.planFile("release"), planLink))
	before, err := os.ReadFile(c.planFile("release"))
	require.NoError(t, err)

	results := c.run(t,
		call(t, "read_file", map[string]any{"file_path": keyLink}),
		call(t, "grep", map[string]any{"pattern": "[0-9a-f]", "path": keyLink, "output_mode": "content"}),
		call(t, "read_file", map[string]any{"file_path": planLink}),
		call(t, "edit_file", map[string]any{"file_path": planLink, "old_string": "- [ ] Build", "new_string": "- [x] Build"}),
	)
	allRefused(t, results, 4)
	for _, r := range results[:2] {
		assert.NotContains(t, r, strings.TrimSpace(string(secret)))
	}
	unchanged(t, c.planFile("release"), before)
}

// A run whose approval key has another name starts with an api.RunWarning event saying so.
func TestARunWarnsWhenTheKeyHasSeveralNames(t *testing.T) {
	ctx := context.Background()
	c := newCoder(t)
	c.approved(t, "release", "# Release\n- [ ] Build\n")
	key := c.keyFile(t)
	warnings := func() []api.RunWarning {
		mw, err := plan.New(ctx, &plan.Config{Store: c.store, AgentName: "coder"})
		require.NoError(t, err)
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "coder", Description: "codes",
			Instruction: "You code.", Model: plantest.NewScriptedModel(plantest.Answer("done")),
			Handlers: []adk.ChatModelAgentMiddleware{mw}})
		require.NoError(t, err)
		var out []api.RunWarning
		iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
		for ev, ok := iter.Next(); ok; ev, ok = iter.Next() {
			require.NoError(t, ev.Err)
			if ev.Output != nil {
				if w, ok := ev.Output.CustomizedOutput.(api.RunWarning); ok {
					out = append(out, w)
				}
			}
		}
		return out
	}
	assert.Empty(t, warnings(), "a key with one name")
	require.NoError(t, os.Link(key, filepath.Join(c.project, "copy")))
	got := warnings()
	require.Len(t, got, 1)
	assert.Equal(t, api.WarningKeyLinked, got[0].Reason)
	assert.Equal(t, key, got[0].Path)
}

// Eino's read_file renamed, its filesystem middleware listed after the plan middleware (so
// BeforeAgent never saw it), is known at the first model call by its parameters and judged
// as read_file: "Read" of the key is refused.
func TestARenamedFileToolListedAfterThePlanMiddlewareIsGuarded(t *testing.T) {
	ctx := context.Background()
	c, key, secret := withKey(t, "readme", "# Readme\n- [ ] Fix a typo\n")
	mw, err := plan.New(ctx, &plan.Config{Store: c.store, AgentName: "coder"})
	require.NoError(t, err)
	files, err := fsmw.New(ctx, &fsmw.MiddlewareConfig{Backend: newLocal(t), ReadFileToolConfig: &fsmw.ToolConfig{Name: "Read"}})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "coder", Description: "codes", Instruction: "You code.",
		Model: plantest.NewScriptedModel(
			call(t, "Read", map[string]any{"file_path": key}),
			call(t, "Read", map[string]any{"file_path": filepath.Join(c.project, "main.go")})),
		Handlers: []adk.ChatModelAgentMiddleware{mw, files},
	})
	require.NoError(t, err)
	results := plantest.RunAgent(t, ctx, agent, "go")
	require.Len(t, results, 2, results)
	refused(t, results[0], "plans_off_limits")
	assert.NotContains(t, results[0], strings.TrimSpace(string(secret)))
	assert.Contains(t, results[1], "package main", "other files read as ever")
}
