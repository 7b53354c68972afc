//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/einoplan/plan/internal/localfs"
	"github.com/stretchr/testify/require"
)

// Where LockPlan is the folder lock, a delete that finds a stray entry where the tombstones'
// folder goes does not wait for the lock it already holds.
func TestDeleteWithFolderWidePlanLocksAndAStrayEntry(t *testing.T) {
	defer localfs.SetRangeLocks(false)()
	root := t.TempDir()
	b, err := localfs.New(root)
	require.NoError(t, err)
	defer b.Close()
	s := storeOn(t, b, "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] a\n")})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "plans", ".deleted"), nil, 0o600))
	_, err = s.Delete(ctx, "p", nil)
	require.NoError(t, err)
}
