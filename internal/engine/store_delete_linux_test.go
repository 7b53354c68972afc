//go:build linux

package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/einoplan/plan/internal/document"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A symbolic link in the plans folder that leads outside the root reads as corrupt, an
// unguarded delete removes the link itself, and the name is free again.
func TestLinkOutsideRootDoesNotBlockTheName(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	makePlansFolder(t, root)
	require.NoError(t, os.WriteFile(filepath.Join(base, "secret.txt"), []byte("s"), 0o600))
	require.NoError(t, os.Symlink("../../secret.txt", filepath.Join(root, "plans", "evil.md")))
	s := storeOn(t, newLocal(t, root), "")

	_, err := s.Get(ctx, "evil")
	assert.Equal(t, document.CodeCorrupt, document.CodeOf(err), "read: %v", err)
	_, err = s.Delete(ctx, "evil", nil)
	assert.NoError(t, err, "an unguarded delete removes the link itself")
	_, err = s.Put(ctx, Update{Name: "evil", Content: ptrTo("- [ ] x\n")})
	assert.NoError(t, err, "the name is free again")
}
