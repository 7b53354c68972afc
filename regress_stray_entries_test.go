//go:build linux

package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// a symbolic link in the plans folder that leads outside the root is reported as
// backend_error (advice "retry later"), not corrupt, and an unguarded delete cannot remove
// it: the name is stuck for good.
func TestRegressionLinkOutsideRootIsStuck(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(base, "secret.txt"), []byte("s"), 0o600))
	require.NoError(t, os.Symlink("../../secret.txt", filepath.Join(root, "plans", "evil.md")))
	s := storeOn(t, newLocal(t, root), "")

	_, err := s.Get(ctx, "evil")
	assert.Equal(t, plan.CodeCorrupt, plan.CodeOf(err), "read: %v", err)
	_, err = s.Delete(ctx, "evil", nil)
	assert.NoError(t, err, "an unguarded delete removes the link itself")
	_, err = s.Put(ctx, plan.Update{Name: "evil", Content: ptrTo("- [ ] x\n")})
	assert.NoError(t, err, "the name is free again")
}

// a stray regular file at <BaseDir>/.deleted blocks the creation of every new plan.
func TestRegressionStrayDeletedFileBlocksEveryCreate(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(root, "plans", ".deleted"), []byte("oops"), 0o600))
	s := storeOn(t, newLocal(t, root), "")
	_, err := s.Put(ctx, plan.Update{Name: "fresh", Content: ptrTo("- [ ] x\n"), IfRevision: ptrTo[int64](0)})
	assert.NoError(t, err, "a stray entry never blocks a name")
}
