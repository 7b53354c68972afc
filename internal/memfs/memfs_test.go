package memfs_test

import (
	"context"
	"github.com/einoplan/plan/driver"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/internal/memfs"
)

// MemoryBackend passes the conformance suite every backend must pass.
func TestConformance(t *testing.T) {
	backendtest.RunBackendSuite(t, func(t *testing.T) plan.Backend { return memfs.New() })
}

// Restore puts back every file of a snapshot and drops files written since.
func TestRestoreReturnsToTheSnapshot(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	require.NoError(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: "/d/a.md", Content: "a"}))
	snap := b.Snapshot()
	require.NoError(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: "/d/a.md", Content: "changed"}))
	require.NoError(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: "/e/b.md", Content: "b"}))
	b.Restore(snap)
	got, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/d/a.md"})
	require.NoError(t, err)
	assert.Equal(t, "a", got.Content)
	entries, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/"})
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the snapshot's folder is left")
}

// A folder is listed in its parent exactly while something is inside it, however deep,
// and the last file out of a chain of folders takes the whole chain with it.
func TestFoldersComeAndGoWithWhatTheyHold(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	names := func(dir string) []string { return listedPaths(t, b, dir, true) }
	write := func(p string) {
		require.NoError(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: p, Content: "x"}))
	}
	remove := func(p string) {
		require.NoError(t, b.Delete(ctx, &driver.DeleteRequest{FilePath: p}))
	}
	write("/plans/.history/p/1-a")
	write("/plans/.history/p/2-b")
	write("/plans/.history/q/1-a")
	write("/plans/p.md")
	assert.ElementsMatch(t, []string{"/plans/.history/p", "/plans/.history/q"}, names("/plans/.history"))
	remove("/plans/.history/p/1-a")
	assert.ElementsMatch(t, []string{"/plans/.history/p", "/plans/.history/q"}, names("/plans/.history"))
	remove("/plans/.history/p/2-b")
	assert.ElementsMatch(t, []string{"/plans/.history/q"}, names("/plans/.history"))
	remove("/plans/.history/q/1-a")
	assert.ElementsMatch(t, []string{"/plans/p.md"}, names("/plans"))
	remove("/plans/p.md")
	assert.Empty(t, names("/"))
	write("/plans/.history/p/3-c")
	assert.ElementsMatch(t, []string{"/plans/.history"}, names("/plans"))
	assert.ElementsMatch(t, []string{"/plans"}, names("/"))
}

// A listing names every file by its clean path, however it was written or listed, and
// Restore keeps those names.
func TestListingsNameFilesByTheirCleanPaths(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	for _, p := range []string{"/plans//a.md", "plans/./b.md", "/plans/x/../c.md", "/top.md"} {
		require.NoError(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: p, Content: p}))
	}
	files := func(dir string) []string { return listedPaths(t, b, dir, false) }
	check := func() {
		t.Helper()
		for _, dir := range []string{"/plans", "plans/", "/plans/."} {
			assert.ElementsMatch(t, []string{"/plans/a.md", "/plans/b.md", "/plans/c.md"}, files(dir), "listed as %q", dir)
		}
		assert.ElementsMatch(t, []string{"/top.md"}, files("/"))
	}
	check()
	b.Restore(b.Snapshot())
	check()
}

// listedPaths is the paths b lists in dir: its files, and its folders too when folders is set.
func listedPaths(t *testing.T, b *memfs.Backend, dir string, folders bool) []string {
	t.Helper()
	infos, err := b.LsInfo(context.Background(), &filesystem.LsInfoRequest{Path: dir})
	require.NoError(t, err)
	var out []string
	for _, i := range infos {
		if folders || !i.IsDir {
			out = append(out, i.Path)
		}
	}
	return out
}
