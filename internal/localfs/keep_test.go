//go:build unix

package localfs

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	require.NoError(t, err)
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no inode numbers here")
	}
	return uint64(st.Ino)
}

// WriteKeeping replaces a file as Write does and keeps the replaced one at keep; where names
// can be swapped, the kept file is the replaced file itself, moved rather than copied.
func TestWriteKeepingKeepsTheReplacedFile(t *testing.T) {
	bothWays(t, func(t *testing.T, swaps bool) {
		ctx := context.Background()
		b, root := newTestLocal(t)
		mustWrite(t, b, "/plans/a.md", "one")
		before := inode(t, filepath.Join(root, "plans", "a.md"))
		keep := "/plans/.history/a/1.00000000"
		require.NoError(t, b.WriteKeeping(ctx, &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "two"}, keep))
		assert.Equal(t, "two", mustRead(t, b, "/plans/a.md"))
		assert.Equal(t, "one", mustRead(t, b, keep))
		if moved := inode(t, filepath.Join(root, "plans", ".history", "a", "1.00000000")) == before; swaps {
			if !swapsNames {
				t.Skip("this platform cannot swap names")
			}
			assert.True(t, moved, "the replaced file itself is kept")
		} else {
			assert.False(t, moved, "a copy is kept")
		}
		assert.Equal(t, []string{".history", "a.md"}, dirNames(t, filepath.Join(root, "plans")), "no temp file is left")
	})
}

// A file that does not exist yet is written and nothing is kept.
func TestWriteKeepingOfANewFileKeepsNothing(t *testing.T) {
	b, root := newTestLocal(t)
	require.NoError(t, b.WriteKeeping(context.Background(), &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "one"}, "/plans/.history/a/0.00000000"))
	assert.Equal(t, "one", mustRead(t, b, "/plans/a.md"))
	assert.NoDirExists(t, filepath.Join(root, "plans", ".history"))
}

// When the folder keep goes in is blocked (a stray file stands there), the call fails before
// anything is written, so the caller can clear the way and write again.
func TestWriteKeepingIntoABlockedFolderWritesNothing(t *testing.T) {
	b, root := newTestLocal(t)
	mustWrite(t, b, "/plans/a.md", "one")
	require.NoError(t, os.WriteFile(filepath.Join(root, "plans", ".history"), []byte("stray"), 0o600))
	err := b.WriteKeeping(context.Background(), &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "two"}, "/plans/.history/a/1.00000000")
	require.Error(t, err)
	assert.Equal(t, "one", mustRead(t, b, "/plans/a.md"))
	assert.Equal(t, []string{".history", "a.md"}, dirNames(t, filepath.Join(root, "plans")))
}

// Readers never find the file missing or cut while it is replaced and kept, and whoever reads
// the new file finds the replaced one already kept: there is no moment when a plan names a
// history entry that is not there yet.
func TestReadersFindTheFileWholeAndTheOneItReplacedKept(t *testing.T) {
	bothWays(t, func(t *testing.T, swaps bool) {
		ctx := context.Background()
		b, _ := newTestLocal(t)
		mustWrite(t, b, "/plans/a.md", "v0")
		keepOf := func(rev int) string { return "/plans/.history/a/" + strconv.Itoa(rev) + ".00000000" }
		var stop atomic.Bool
		var wg sync.WaitGroup
		var bad atomic.Value
		var checked atomic.Int64
		for range 2 {
			wg.Go(func() {
				for !stop.Load() {
					fc, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/plans/a.md"})
					if err != nil {
						bad.Store(err.Error())
						return
					}
					rev, err := strconv.Atoi(strings.TrimPrefix(fc.Content, "v"))
					if err != nil {
						bad.Store("read " + fc.Content)
						return
					}
					if rev == 0 {
						continue
					}
					kept, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: keepOf(rev - 1)})
					if err != nil {
						bad.Store(fc.Content + " is there, its predecessor is not: " + err.Error())
						return
					}
					if kept.Content != "v"+strconv.Itoa(rev-1) {
						bad.Store("kept " + kept.Content + " for " + fc.Content)
						return
					}
					checked.Add(1)
				}
			})
		}
		for i := 1; i <= 500; i++ {
			require.NoError(t, b.WriteKeeping(ctx, &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "v" + strconv.Itoa(i)}, keepOf(i-1)))
		}
		stop.Store(true)
		wg.Wait()
		assert.Nil(t, bad.Load())
		assert.Positive(t, checked.Load())
		assert.Equal(t, "v499", mustRead(t, b, keepOf(499)))
	})
}

// A file left at keep by a crash between writing it and the swap is replaced by the next
// keep of that revision.
func TestWriteKeepingReplacesWhatACrashLeftAtKeep(t *testing.T) {
	b, root := newTestLocal(t)
	mustWrite(t, b, "/plans/a.md", "one")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans", ".history", "a"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(root, "plans", ".history", "a", "1.00000000"), []byte("two, never swapped in"), 0o600))
	require.NoError(t, b.WriteKeeping(context.Background(), &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "two"}, "/plans/.history/a/1.00000000"))
	assert.Equal(t, "two", mustRead(t, b, "/plans/a.md"))
	assert.Equal(t, "one", mustRead(t, b, "/plans/.history/a/1.00000000"))
}

// A file cannot be kept at its own path: the call fails and the file stays as it was.
func TestWriteKeepingAtTheFilesOwnPathWritesNothing(t *testing.T) {
	b, _ := newTestLocal(t)
	mustWrite(t, b, "/plans/a.md", "one")
	require.Error(t, b.WriteKeeping(context.Background(), &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "two"}, "/plans/./a.md"))
	assert.Equal(t, "one", mustRead(t, b, "/plans/a.md"))
}

// bothWays runs test where names can be swapped (swaps) and as where they cannot. It sets
// the package's swapNames, so no test here runs in parallel.
func bothWays(t *testing.T, test func(t *testing.T, swaps bool)) {
	for _, swaps := range []bool{true, false} {
		t.Run(map[bool]string{true: "swapped", false: "copied"}[swaps], func(t *testing.T) {
			if !swaps {
				swapNames = func(*os.File, string, *os.File, string) (bool, error) { return false, nil }
				t.Cleanup(func() { swapNames = exchange })
			}
			test(t, swaps)
		})
	}
}

// A swap that fails writes nothing: the plan is as it was, and nothing is left at keep.
func TestWriteKeepingWhoseSwapFailsWritesNothing(t *testing.T) {
	swapNames = func(*os.File, string, *os.File, string) (bool, error) { return false, syscall.EIO }
	t.Cleanup(func() { swapNames = exchange })
	if !swapsNames {
		t.Skip("this platform cannot swap names")
	}
	b, root := newTestLocal(t)
	mustWrite(t, b, "/plans/a.md", "one")
	require.ErrorIs(t, b.WriteKeeping(context.Background(), &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "two"}, "/plans/.history/a/1.00000000"), syscall.EIO)
	assert.Equal(t, "one", mustRead(t, b, "/plans/a.md"))
	assert.Empty(t, dirNames(t, filepath.Join(root, "plans", ".history", "a")))
}

// Two files that cannot swap names (an append-only file, a mount between the folders) are
// copied, and the next write swaps again.
func TestWriteKeepingCopiesOnlyTheFilesThatCannotSwap(t *testing.T) {
	if !swapsNames {
		t.Skip("this platform cannot swap names")
	}
	refuse := true
	swapNames = func(a *os.File, an string, b *os.File, bn string) (bool, error) {
		if refuse {
			return false, errNotSwappedHere
		}
		return exchange(a, an, b, bn)
	}
	t.Cleanup(func() { swapNames = exchange })
	ctx := context.Background()
	b, root := newTestLocal(t)
	mustWrite(t, b, "/plans/a.md", "one")
	require.NoError(t, b.WriteKeeping(ctx, &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "two"}, "/plans/.history/a/1.00000000"))
	assert.Equal(t, "two", mustRead(t, b, "/plans/a.md"))
	assert.Equal(t, "one", mustRead(t, b, "/plans/.history/a/1.00000000"))
	refuse = false
	before := inode(t, filepath.Join(root, "plans", "a.md"))
	require.NoError(t, b.WriteKeeping(ctx, &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "three"}, "/plans/.history/a/2.00000000"))
	assert.Equal(t, before, inode(t, filepath.Join(root, "plans", ".history", "a", "2.00000000")), "swapped again")
}

// keep that reaches the file itself through a linked folder is refused, and the file stays.
func TestWriteKeepingThroughALinkToTheFileItselfWritesNothing(t *testing.T) {
	b, root := newTestLocal(t)
	mustWrite(t, b, "/plans/a.md", "one")
	require.NoError(t, os.Symlink("plans", filepath.Join(root, "alias")))
	require.Error(t, b.WriteKeeping(context.Background(), &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "two"}, "/alias/a.md"))
	assert.Equal(t, "one", mustRead(t, b, "/plans/a.md"))
}
