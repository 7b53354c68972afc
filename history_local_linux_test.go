package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// On a LocalBackend on Linux a change keeps the file it replaces by moving it into the
// history: the entry is that very file, so a change creates no file beside its temp file.
func TestALocalChangeKeepsTheReplacedPlanFileItself(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	b := newLocal(t, root)
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b})
	require.NoError(t, err)
	_, err = s.Put(ctx, plan.Update{Name: "ship", Content: ptrTo("- [ ] build\n")})
	require.NoError(t, err)
	planFile := filepath.Join(root, "plans", "ship.md")
	first := inodeOf(t, planFile)
	_, err = s.SetStatus(ctx, "ship", "active", nil)
	require.NoError(t, err)
	files := entryFiles(t, b, "ship")
	require.Len(t, files, 1)
	assert.Equal(t, first, inodeOf(t, filepath.Join(root, filepath.FromSlash(files[0]))))
	assert.NotEqual(t, first, inodeOf(t, planFile))
	old, err := s.GetRevision(ctx, "ship", 1)
	require.NoError(t, err)
	assert.Equal(t, "draft", old.Status)
}

func inodeOf(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	require.NoError(t, err)
	return uint64(fi.Sys().(*syscall.Stat_t).Ino)
}
