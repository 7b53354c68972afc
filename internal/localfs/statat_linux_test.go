//go:build linux && (amd64 || arm64)

package localfs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The raw fstatat reports what os.Root's Lstat does for files, folders, links (as
// themselves, dangling or not), named pipes, sockets and names gone since the folder was
// read.
func TestFstatEntriesReportsWhatLstatDoes(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("hello"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "é ü.md"), []byte("x"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, strings.Repeat("n", maxPlainName)), nil, 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	require.NoError(t, os.Symlink("a.md", filepath.Join(dir, "link.md")))
	require.NoError(t, os.Symlink("nowhere", filepath.Join(dir, "dangling.md")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o600))
	sock, err := net.Listen("unix", filepath.Join(dir, "sock.md"))
	require.NoError(t, err)
	defer sock.Close()
	old := time.Date(2001, 2, 3, 4, 5, 6, 789, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "a.md"), old, old))

	folder, f, fd := openTestFolder(t, dir)
	names, err := f.Readdirnames(-1)
	require.NoError(t, err)
	names = append(names, "gone.md")

	rawStats, err := fstatNames(fd, names)
	require.NoError(t, err)
	viaRootStats, err := statNamesIn(folder, names)
	require.NoError(t, err)
	require.Equal(t, viaRootStats, rawStats)
	raw := map[string]entryStat{}
	for i, name := range names {
		raw[name] = rawStats[i]
	}
	require.Len(t, raw, 9)
	require.True(t, raw["gone.md"].gone)
	require.True(t, raw["sub"].isDir)
	require.False(t, raw["sock.md"].isDir)
	require.False(t, raw["link.md"].isDir)
	require.Equal(t, int64(len("a.md")), raw["link.md"].size, "a link is its own size")
	require.Equal(t, int64(5), raw["a.md"].size)
	require.True(t, raw["a.md"].mod.Equal(old), "got %v", raw["a.md"].mod)
}

// A folder of many batches is read whole, each name once with its own stat, whatever
// batch statted it, and only the names keep accepts.
func TestReadFolderStatsEveryBatchAsLstatDoes(t *testing.T) {
	dir := t.TempDir()
	const n = 3*namesPerBatch + 17
	for i := range n {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%04d.md", i)), make([]byte, i), 0o600))
	}
	folder, f, _ := openTestFolder(t, dir)
	names, stats, err := readFolder(context.Background(), f, folder, func(name string) bool { return name != "p0007.md" })
	require.NoError(t, err)
	require.Len(t, names, n-1)
	require.Len(t, stats, n-1)
	seen := map[string]bool{}
	for i, name := range names {
		require.False(t, seen[name], name)
		seen[name] = true
		var num int
		_, err := fmt.Sscanf(name, "p%04d.md", &num)
		require.NoError(t, err)
		require.Equal(t, int64(num), stats[i].size, name)
		fi, err := os.Lstat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.True(t, fi.ModTime().Equal(stats[i].mod), name)
	}
	require.NotContains(t, seen, "p0007.md")
}

// A name that could lead out of the folder is never handed to a raw fstatat: its batch
// goes through os.Root, which refuses it.
func TestStatBatchRefusesNamesThatLeaveTheFolder(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "plans")
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(parent, "secret.md"), []byte("s"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("a"), 0o600))
	folder, _, fd := openTestFolder(t, dir)
	for _, name := range []string{"../secret.md", "..", "a\x00b", strings.Repeat("n", maxPlainName+1)} {
		b := &statBatch{names: []string{"a.md", name}}
		b.stat(fd, folder)
		require.Error(t, b.err, "%q", name)
		require.Nil(t, b.stats, "%q", name)
	}
}

// openTestFolder opens dir as os.Root and as a folder to read, with the folder's
// descriptor, all closed with the test.
func openTestFolder(t *testing.T, dir string) (*os.Root, *os.File, uintptr) {
	folder, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { folder.Close() })
	f, err := folder.OpenFile(".", os.O_RDONLY|localOpenNonblock, 0)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	var fd uintptr
	conn, err := f.SyscallConn()
	require.NoError(t, err)
	require.NoError(t, conn.Control(func(raw uintptr) { fd = raw }))
	return folder, f, fd
}

// A name removed after the folder was read and before its stat is left out, not listed
// with an empty stat.
func TestReadFolderLeavesOutNamesRemovedBeforeTheirStat(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.md", "b.md", "c.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(name), 0o600))
	}
	folder, f, _ := openTestFolder(t, dir)
	removed := false
	names, stats, err := readFolder(context.Background(), f, folder, func(string) bool {
		if !removed { // every name of this short folder is read before any is statted
			require.NoError(t, os.Remove(filepath.Join(dir, "b.md")))
			removed = true
		}
		return true
	})
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"a.md", "c.md"}, names)
	for i, st := range stats {
		require.Equal(t, int64(len(names[i])), st.size, names[i])
	}
}

// A listing canceled while the folder is read stops at the next batch with the context's
// error.
func TestReadFolderStopsWhenCanceled(t *testing.T) {
	dir := t.TempDir()
	for i := range 2*namesPerBatch + 1 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%04d.md", i)), nil, 0o600))
	}
	folder, f, _ := openTestFolder(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	_, _, err := readFolder(ctx, f, folder, func(string) bool { cancel(); return true })
	require.ErrorIs(t, err, context.Canceled)
}

// The batches join in order without their gone names, and one failed batch fails the listing.
func TestJoinBatchesKeepsOrderAndFailsOnAnyBatch(t *testing.T) {
	names, stats, err := joinBatches([]*statBatch{
		{names: []string{"a", "b"}, stats: []entryStat{{size: 1}, {gone: true}}},
		{names: []string{"c"}, stats: []entryStat{{size: 3}}},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "c"}, names)
	require.Equal(t, []entryStat{{size: 1}, {size: 3}}, stats)
	failed := errors.New("stat failed")
	_, _, err = joinBatches([]*statBatch{{names: []string{"a"}, stats: []entryStat{{}}}, {names: []string{"b"}, err: failed}})
	require.ErrorIs(t, err, failed)
}
