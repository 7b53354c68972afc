package einoext_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
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
	c := newCoder(t)
	c.approved(t, "readme", "# Readme\n- [ ] Fix a typo\n")
	key := c.keyFile(t)
	secret, err := os.ReadFile(key)
	require.NoError(t, err)

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
