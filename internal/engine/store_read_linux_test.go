//go:build linux

package engine

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/einoplan/plan/internal/document"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEntriesThatCanNeverBePlans: each kind of entry is corrupt, listed as a warning,
// and an unguarded delete frees its name.
func TestEntriesThatCanNeverBePlans(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := makePlansFolder(t, root)
	require.NoError(t, os.WriteFile(filepath.Join(root, "target.md"), []byte("x"), 0o600))

	makers := map[string]func(p string) error{
		"link":   func(p string) error { return os.Symlink("../target.md", p) },
		"fifo":   func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"folder": func(p string) error { return os.MkdirAll(filepath.Join(p, "inner"), 0o700) },
		"socket": func(p string) error {
			l, err := net.Listen("unix", p)
			if err == nil {
				t.Cleanup(func() { l.Close() })
			}
			return err
		},
		"device": func(p string) error { return syscall.Mknod(p, syscall.S_IFCHR|0o600, int(mkdev(1, 3))) },
	}
	var names []string
	for kind, mk := range makers {
		if err := mk(filepath.Join(dir, kind+".md")); err != nil {
			t.Logf("cannot make a %s here: %v", kind, err)
			continue
		}
		names = append(names, kind)
	}
	require.GreaterOrEqual(t, len(names), 4)
	// A stray folder where a tombstone would be never blocks the name.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".deleted", "fresh", "x"), 0o700))

	s := storeOn(t, newLocal(t, root), "")
	listing, err := s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, listing.Plans)
	warned := map[string]document.Code{}
	for _, w := range listing.Warnings {
		warned[w.Name] = w.Code
	}
	for _, name := range names {
		assert.Equal(t, document.CodeCorrupt, warned[name], "%s is listed as corrupt", name)
		_, err := s.Get(ctx, name)
		assert.Equal(t, document.CodeCorrupt, document.CodeOf(err), name)
		assert.NotContains(t, fmt.Sprint(err), "SECRET")
		_, err = s.Put(ctx, Update{Name: name, Content: ptrTo("- [ ] x\n"), IfRevision: ptrTo[int64](1)})
		assert.Error(t, err, "a guarded write never replaces %s", name)
		_, err = s.Delete(ctx, name, nil)
		require.NoError(t, err, "an unguarded delete removes the %s", name)
		_, err = os.Lstat(filepath.Join(dir, name+".md"))
		assert.ErrorIs(t, err, os.ErrNotExist, name)
		p, err := s.Put(ctx, Update{Name: name, Content: ptrTo("- [ ] x\n"), IfRevision: ptrTo[int64](0)})
		require.NoError(t, err, "the name %s is free again", name)
		assert.EqualValues(t, 1, p.Revision)
	}
	assert.Equal(t, "x", readText(t, filepath.Join(root, "target.md")), "a link's target is untouched")

	p, err := s.Put(ctx, Update{Name: "fresh", Content: ptrTo("- [ ] x\n"), IfRevision: ptrTo[int64](0)})
	require.NoError(t, err)
	_, err = s.Delete(ctx, "fresh", &p.Revision)
	require.NoError(t, err)
	p, err = s.Put(ctx, Update{Name: "fresh", Content: ptrTo("- [ ] y\n"), IfRevision: ptrTo[int64](0)})
	require.NoError(t, err)
	assert.EqualValues(t, 2, p.Revision, "the stray tombstone folder was replaced by a real tombstone")
}

func mkdev(major, minor uint64) uint64 {
	return (major&0xfff)<<8 | (minor & 0xff) | (major>>12)<<32 | (minor>>8)<<20
}

func readText(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(data)
}
