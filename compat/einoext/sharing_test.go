package einoext_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// TestAdapterAsWorkspaceGuardsThePlansFolder: when the adapter value is both the Backend and
// the Workspace, the file tools refuse paths inside the plans folder, so an export cannot
// overwrite a plan behind the Store's back. (Given eino-ext's *local.Local itself as the
// Workspace, the Store cannot tell that it reaches the same disk.)
func TestAdapterAsWorkspaceGuardsThePlansFolder(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "plans")
	b := backend{newLocal(t)}
	results := runAgent(t, &plan.Config{Backend: b, BaseDir: dir, Workspace: b},
		plantest.CallTool("write_plan", jsonArgs(t, map[string]any{"name": "ship", "content": "- [ ] a\n"})),
		plantest.CallTool("export_plan_to_file", jsonArgs(t, map[string]any{"name": "ship", "path": filepath.Join(dir, "ship.md")})),
		plantest.CallTool("export_plan_to_file", jsonArgs(t, map[string]any{"name": "ship", "path": dir + "/sub/../other.md"})),
		plantest.CallTool("export_plan_to_file", jsonArgs(t, map[string]any{"name": "ship", "path": filepath.Join(root, "ship.md")})),
	)
	require.Equal(t, "", errorCode(t, results[0]), results[0])
	require.Equal(t, "invalid_argument", errorCode(t, results[1]), results[1])
	require.Equal(t, "invalid_argument", errorCode(t, results[2]), results[2])
	require.Equal(t, "", errorCode(t, results[3]), results[3])

	store, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: dir})
	require.NoError(t, err)
	listing, err := store.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	require.Len(t, listing.Plans, 1)
	require.Empty(t, listing.Warnings, "no file landed in the plans folder")
}
