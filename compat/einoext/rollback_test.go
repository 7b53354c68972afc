package einoext_test

import (
	"context"
	"fmt"
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

// On eino-ext's local backend, which keeps each history entry just before the write that
// replaces it, a plan nobody governs put back by hand two revisions, one revision and
// edited, or one revision byte for byte, is reported as rolled back when read and by the
// next write, which writes nothing; a person's delete then lets the plan start again past
// every revision it reached.
func TestAnUngovernedPlanPutBackOnEinoExtsBackendIsRolledBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		back int64
		edit string
	}{{"two revisions", 2, ""}, {"one revision, edited", 1, "- [ ] added by hand\n"}, {"one revision", 1, ""}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			b := atomicBackend{backend{newLocal(t)}}
			store, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: dir})
			require.NoError(t, err)
			file := filepath.Join(dir, "notes.md")
			files := map[int64][]byte{}
			var last *plan.Plan
			for i := range 3 {
				last, err = store.Put(ctx, plan.Update{Name: "notes", Content: ptr(fmt.Sprintf("- [ ] step %d\n", i))})
				require.NoError(t, err)
				files[last.Revision], err = os.ReadFile(file)
				require.NoError(t, err)
			}
			old := append(files[last.Revision-tc.back], tc.edit...)
			require.NoError(t, os.WriteFile(file, old, 0o600))

			// a Store of another process, which never saw the plan
			fresh, err := plan.NewStore(&plan.StoreConfig{Backend: atomicBackend{backend{newLocal(t)}}, BaseDir: dir})
			require.NoError(t, err)
			_, err = fresh.Get(ctx, "notes")
			assert.Equal(t, plan.CodeRolledBack, plan.CodeOf(err), "%v", err)
			_, err = fresh.Put(ctx, plan.Update{Name: "notes", Content: ptr("- [ ] other\n")})
			assert.Equal(t, plan.CodeRolledBack, plan.CodeOf(err), "%v", err)
			unchanged(t, file, old)
			_, err = fresh.Delete(ctx, "notes", nil)
			require.NoError(t, err)
			again, err := store.Put(ctx, plan.Update{Name: "notes", Content: ptr("- [ ] anew\n")})
			require.NoError(t, err)
			assert.Greater(t, again.Revision, last.Revision, "no revision is written twice")
		})
	}
}
