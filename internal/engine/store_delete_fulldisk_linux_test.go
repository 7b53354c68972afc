//go:build linux

package engine

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/einoplan/plan/internal/document"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeleteOnFullDisk fills a 1 MiB tmpfs: deleting frees space, and when nothing can
// be written a plan is never lost.
func TestDeleteOnFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	ctx := context.Background()
	s := storeOn(t, newLocal(t, mnt), "")
	body := strings.Repeat("- [ ] a step of the plan\n", 4000) // 100 KB
	var written []*document.Plan
	for i := 0; ; i++ {
		p, err := s.Put(ctx, Update{Name: fmt.Sprintf("p%d", i), Content: &body})
		if err != nil {
			require.Equal(t, document.CodeBackendError, document.CodeOf(err), "a write on a full disk fails cleanly: %v", err)
			break
		}
		written = append(written, p)
		require.Less(t, i, 100, "the disk never filled")
	}
	require.NotEmpty(t, written)
	// Fill the last free bytes too.
	f, err := os.Create(filepath.Join(mnt, "filler"))
	require.NoError(t, err)
	_, _ = f.Write(make([]byte, 1<<20))
	f.Close()

	for _, p := range written {
		rev, err := s.Delete(ctx, p.Name, &p.Revision)
		require.NoError(t, err, "delete %s on a full disk", p.Name)
		assert.Equal(t, p.Revision, rev)
	}
	listing, err := s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, listing.Plans)
	assert.Empty(t, listing.Warnings)
	p, err := s.Put(ctx, Update{Name: written[0].Name, Content: ptrTo("- [ ] again\n")})
	require.NoError(t, err, "space was freed")
	assert.Equal(t, written[0].Revision+1, p.Revision, "revisions go on after a delete on a full disk")
}
