package plan_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

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
