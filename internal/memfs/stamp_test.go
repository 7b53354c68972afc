package memfs_test

import (
	"context"
	"fmt"
	"github.com/einoplan/plan/driver"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/internal/memfs"
)

// A folder's stamp moves with every change of what it lists, through every way of
// changing it, and with nothing else; no stamp ever comes back, not even an absent
// folder's.
func TestFolderStampMovesWithEveryChangeOfItsEntries(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	stamps := memfs.Stamps(b)
	stampOf := func(dir string) string {
		t.Helper()
		st, recent, err := stamps.FolderStamp(ctx, dir)
		require.NoError(t, err)
		require.False(t, recent)
		return st
	}
	stamp := func() string { return stampOf("/plans") }
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
	seen[stamp()] = "the absent start"
	step("creating a file", true, write("/plans/a.md", one))
	step("rewriting it the same", true, write("/plans/a.md", one))
	step("a swap that lands", true, swap("/plans/a.md", "two", &one, true))
	step("a swap that is refused", false, swap("/plans/a.md", "three", &other, false))
	step("a file in a new subfolder", true, write("/plans/.history/a/1-x", "e"))
	step("a file in a new folder beside it", false, write("/plans/.history/b/1-x", "e"))
	step("that folder going while its parent stays", false, func() {
		require.NoError(t, b.Delete(ctx, &driver.DeleteRequest{FilePath: "/plans/.history/b/1-x"}))
	})
	require.NotContains(t, seen, stampOf("/plans/.history"), "a folder made on the way to a file has a stamp of its own")
	step("a second file in that subfolder", false, write("/plans/.history/a/2-y", "e"))
	step("a file in the folder beside it", false, write("/elsewhere/a.md", "e"))
	step("a refused compare-and-delete", false, func() {
		ok, err := b.CompareAndDelete(ctx, &driver.DeleteRequest{FilePath: "/plans/a.md"}, "not it")
		require.NoError(t, err)
		require.False(t, ok)
	})
	step("a compare-and-delete", true, func() {
		ok, err := b.CompareAndDelete(ctx, &driver.DeleteRequest{FilePath: "/plans/a.md"}, "two")
		require.NoError(t, err)
		require.True(t, ok)
	})
	step("deleting a missing file", false, func() {
		require.NoError(t, b.Delete(ctx, &driver.DeleteRequest{FilePath: "/plans/a.md"}))
	})
	step("emptying the subfolder lazily", true, func() {
		require.NoError(t, b.DeleteLazily(ctx, "/plans/.history/a/1-x", "/plans/.history/a/2-y"))
	})
	require.True(t, strings.HasPrefix(stamp(), "absent/"), "the folder went with its last entry")
	step("making the folder again", true, write("/plans/b.md", one))
	snap := b.Snapshot()
	step("deleting a file", true, func() {
		require.NoError(t, b.Delete(ctx, &driver.DeleteRequest{FilePath: "/plans/b.md"}))
	})
	step("making it again", true, write("/plans/b.md", one))
	step("restoring a snapshot", true, func() { b.Restore(snap) })
}

// A folder's stamp names one listing only: after any sequence of writes, swaps, deletes,
// lazy deletes, snapshots and restores, a folder showing a stamp it showed before lists
// what it listed then.
func TestAFolderStampNamesOneListingOnly(t *testing.T) {
	ctx := context.Background()
	dirs := []string{"/", "/p", "/p/q", "/p/q/r", "/s"}
	var files []string
	for _, d := range dirs {
		for _, n := range []string{"a", "b"} {
			files = append(files, strings.TrimSuffix(d, "/")+"/"+n)
		}
	}
	listing := func(b *memfs.Backend, dir string) string {
		infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: dir})
		require.NoError(t, err)
		var parts []string
		for _, i := range infos {
			parts = append(parts, fmt.Sprintf("%s|%v|%d|%s", i.Path, i.IsDir, i.Size, i.ModifiedAt))
		}
		slices.Sort(parts)
		return strings.Join(parts, ";")
	}
	for seed := range 200 {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		b := memfs.New()
		stamps := memfs.Stamps(b)
		seen := map[string]string{} // folder and stamp: what it listed
		var snaps []memfs.Snapshot
		for step := range 300 {
			f := files[r.IntN(len(files))]
			var op string
			switch r.IntN(7) {
			case 0, 1:
				op = "write " + f
				require.NoError(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: f, Content: fmt.Sprint(r.IntN(3))}))
			case 2:
				op = "swap " + f
				old := fmt.Sprint(r.IntN(3))
				_, err := b.CompareAndSwap(ctx, &filesystem.WriteRequest{FilePath: f, Content: fmt.Sprint(step)}, &old)
				require.NoError(t, err)
			case 3:
				op = "compare-and-delete " + f
				_, err := b.CompareAndDelete(ctx, &driver.DeleteRequest{FilePath: f}, fmt.Sprint(r.IntN(3)))
				require.NoError(t, err)
			case 4:
				op = "delete " + f
				require.NoError(t, b.Delete(ctx, &driver.DeleteRequest{FilePath: f}))
			case 5:
				op = "lazy delete"
				require.NoError(t, b.DeleteLazily(ctx, f, files[r.IntN(len(files))]))
			case 6:
				if len(snaps) > 0 && r.IntN(2) == 0 {
					op = "restore"
					b.Restore(snaps[r.IntN(len(snaps))])
				} else {
					op = "snapshot"
					snaps = append(snaps, b.Snapshot())
				}
			}
			for _, d := range dirs {
				st, recent, err := stamps.FolderStamp(ctx, d)
				require.NoError(t, err)
				require.False(t, recent)
				l := listing(b, d)
				k := d + "@" + st
				if prev, ok := seen[k]; ok && prev != l {
					t.Fatalf("seed %d, after %s: %s with stamp %s listed %q, now %q", seed, op, d, st, prev, l)
				}
				seen[k] = l
			}
		}
	}
}
