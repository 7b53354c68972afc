//go:build linux

package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Stray entries on a tombstone's path (a file or a link where the tombstone folder belongs, a
// link where a tombstone belongs) never block the creation of a plan.
func TestStrayEntriesOnTheTombstonePathBlockNoName(t *testing.T) {
	ctx := context.Background()
	cases := map[string]func(root string) error{
		"deleted is a file":       func(r string) error { return os.WriteFile(filepath.Join(r, "plans", ".deleted"), nil, 0o600) },
		"deleted links outside":   func(r string) error { return os.Symlink("/tmp", filepath.Join(r, "plans", ".deleted")) },
		"tombstone links outside": func(r string) error { return os.MkdirAll(filepath.Join(r, "plans", ".deleted"), 0o700) },
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			makePlansFolder(t, root)
			require.NoError(t, mk(root))
			if name == "tombstone links outside" {
				require.NoError(t, os.Symlink("/etc/hostname", filepath.Join(root, "plans", ".deleted", "fresh")))
			}
			s := storeOn(t, newLocal(t, root), "")
			_, err := s.Put(ctx, Update{Name: "fresh", Content: ptrTo("- [ ] x\n"), IfRevision: ptrTo[int64](0)})
			assert.NoError(t, err, "a stray entry never blocks a name")
		})
	}
}

// A stray regular file at <BaseDir>/.deleted never blocks the creation of a new plan.
func TestStrayDeletedFileBlocksNoCreate(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	makePlansFolder(t, root)
	require.NoError(t, os.WriteFile(filepath.Join(root, "plans", ".deleted"), []byte("oops"), 0o600))
	s := storeOn(t, newLocal(t, root), "")
	_, err := s.Put(ctx, Update{Name: "fresh", Content: ptrTo("- [ ] x\n"), IfRevision: ptrTo[int64](0)})
	assert.NoError(t, err, "a stray entry never blocks a name")
}
