//go:build linux && (amd64 || arm64)

package localfs

import (
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

	folder, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer folder.Close()
	f, err := folder.OpenFile(".", os.O_RDONLY|localOpenNonblock, 0)
	require.NoError(t, err)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	require.NoError(t, err)
	names = append(names, "gone.md")

	collect := func(stat func(each func(string, entryStat) error) error) map[string]entryStat {
		got := map[string]entryStat{}
		require.NoError(t, stat(func(name string, st entryStat) error {
			got[name] = st
			return nil
		}))
		return got
	}
	raw := collect(func(each func(string, entryStat) error) error { return fstatEntries(f, names, each) })
	viaRoot := collect(func(each func(string, entryStat) error) error { return statEntriesIn(folder, names, each) })

	require.Len(t, raw, 8)
	require.Equal(t, viaRoot, raw)
	require.True(t, raw["sub"].isDir)
	require.False(t, raw["sock.md"].isDir)
	require.False(t, raw["link.md"].isDir)
	require.Equal(t, int64(len("a.md")), raw["link.md"].size, "a link is its own size")
	require.Equal(t, int64(5), raw["a.md"].size)
	require.True(t, raw["a.md"].mod.Equal(old), "got %v", raw["a.md"].mod)
}
