package memfs_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/internal/memfs"
)

// A folder's stamp moves with every change of what it lists, through every way of
// changing it, and with nothing else; a folder made again, or restored, never shows a
// stamp it had before (only "absent" comes back, and an absent folder lists nothing).
func TestFolderStampMovesWithEveryChangeOfItsEntries(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	stamp := func() string {
		t.Helper()
		st, recent, err := b.FolderStamp(ctx, "/plans")
		require.NoError(t, err)
		require.False(t, recent)
		return st
	}
	seen := map[string]string{}
	step := func(what string, moves bool, change func()) {
		t.Helper()
		before := stamp()
		change()
		after := stamp()
		if !moves {
			require.Equal(t, before, after, "%s moved the stamp", what)
			return
		}
		require.NotEqual(t, before, after, "%s left the stamp", what)
		if after == "absent" {
			return // an absent folder lists nothing, whenever it is
		}
		require.NotContains(t, seen, after, "%s gave the stamp that %s gave", what, seen[after])
		seen[after] = what
	}
	write := func(p, content string) func() {
		return func() {
			require.NoError(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: p, Content: content}))
		}
	}
	swap := func(p, content string, old *string, landed bool) func() {
		return func() {
			ok, err := b.CompareAndSwap(ctx, &filesystem.WriteRequest{FilePath: p, Content: content}, old)
			require.NoError(t, err)
			require.Equal(t, landed, ok)
		}
	}
	one, other := "one", "other"
	require.Equal(t, "absent", stamp())
	step("creating a file", true, write("/plans/a.md", one))
	step("rewriting it the same", true, write("/plans/a.md", one))
	step("a swap that lands", true, swap("/plans/a.md", "two", &one, true))
	step("a swap that is refused", false, swap("/plans/a.md", "three", &other, false))
	step("a file in a new subfolder", true, write("/plans/.history/a/1-x", "e"))
	step("a second file in that subfolder", false, write("/plans/.history/a/2-y", "e"))
	step("a file in the folder beside it", false, write("/elsewhere/a.md", "e"))
	step("a refused compare-and-delete", false, func() {
		ok, err := b.CompareAndDelete(ctx, &plan.DeleteRequest{FilePath: "/plans/a.md"}, "not it")
		require.NoError(t, err)
		require.False(t, ok)
	})
	step("a compare-and-delete", true, func() {
		ok, err := b.CompareAndDelete(ctx, &plan.DeleteRequest{FilePath: "/plans/a.md"}, "two")
		require.NoError(t, err)
		require.True(t, ok)
	})
	step("deleting a missing file", false, func() {
		require.NoError(t, b.Delete(ctx, &plan.DeleteRequest{FilePath: "/plans/a.md"}))
	})
	step("emptying the subfolder lazily", true, func() {
		require.NoError(t, b.DeleteLazily(ctx, "/plans/.history/a/1-x", "/plans/.history/a/2-y"))
	})
	require.Equal(t, "absent", stamp(), "the folder went with its last entry")
	step("making the folder again", true, write("/plans/b.md", one))
	snap := b.Snapshot()
	step("deleting a file", true, func() {
		require.NoError(t, b.Delete(ctx, &plan.DeleteRequest{FilePath: "/plans/b.md"}))
	})
	step("making it again", true, write("/plans/b.md", one))
	step("restoring a snapshot", true, func() { b.Restore(snap) })
}
