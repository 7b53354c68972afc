package einoext_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// An approved plan file put back by hand after the approval was revoked stays rolled back:
// the mark that says so is out of reach of Eino's file tools on eino-ext's local backend,
// which can neither read nor rewrite it, so the file put back is never served.
func TestEinoFileToolsCannotUndoARollbackMark(t *testing.T) {
	ctx := context.Background()
	c := newCoder(t)
	c.approved(t, "release", "# Release\n- [ ] Deploy to production (uses deploy_prod)\n")
	old, err := os.ReadFile(c.planFile("release"))
	require.NoError(t, err)
	_, err = c.store.Revoke(ctx, "release")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(c.planFile("release"), old, 0o600)) // put back by hand

	mark := filepath.Join(c.root, ".plans.approval-marks", "release")
	before, err := os.ReadFile(mark)
	require.NoError(t, err)
	results := c.run(t,
		call(t, "read_file", map[string]any{"file_path": mark}),
		call(t, "write_file", map[string]any{"file_path": mark, "content": "---\nrevision: 1\n---\n"}),
		call(t, "write_file", map[string]any{"file_path": filepath.Join(filepath.Dir(mark), "other"), "content": "x"}),
	)
	allRefused(t, results, 3)
	unchanged(t, mark, before)

	fresh, err := plan.NewStore(&plan.StoreConfig{Backend: c.backend})
	require.NoError(t, err)
	_, err = fresh.Get(ctx, "release")
	assert.Equal(t, plan.CodeRolledBack, plan.CodeOf(err), "%v", err)
}
