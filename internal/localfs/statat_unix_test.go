//go:build unix

package localfs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// statEntries, whichever way the platform takes, reports what os.Root's Lstat does for
// files, folders, links (as themselves, dangling or not), named pipes and names gone since
// the folder was read.
func TestStatEntriesReportsWhatLstatDoes(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.md"), []byte("hello"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "é ü.md"), []byte("x"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	require.NoError(t, os.Symlink("a.md", filepath.Join(dir, "link.md")))
	require.NoError(t, os.Symlink("nowhere", filepath.Join(dir, "dangling.md")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o600))
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
	fast := collect(func(each func(string, entryStat) error) error { return statEntries(f, folder, names, each) })
	viaRoot := collect(func(each func(string, entryStat) error) error { return statEntriesIn(folder, names, each) })

	require.Len(t, fast, 6)
	require.Equal(t, viaRoot, fast)
	require.True(t, fast["sub"].isDir)
	require.False(t, fast["link.md"].isDir)
	require.Equal(t, int64(len("a.md")), fast["link.md"].size, "a link is its own size")
	require.Equal(t, int64(5), fast["a.md"].size)
	require.True(t, fast["a.md"].mod.Equal(old), "got %v", fast["a.md"].mod)
}

// A name that could lead out of the folder is never handed to a raw fstatat: the listing
// goes through os.Root, which refuses it.
func TestStatEntriesRefusesNamesThatLeaveTheFolder(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "plans")
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(parent, "secret.md"), []byte("s"), 0o600))
	folder, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer folder.Close()
	f, err := folder.OpenFile(".", os.O_RDONLY, 0)
	require.NoError(t, err)
	defer f.Close()
	for _, name := range []string{"../secret.md", "..", "a\x00b"} {
		seen := 0
		err := statEntries(f, folder, []string{name}, func(string, entryStat) error { seen++; return nil })
		require.Zero(t, seen, "%q", name)
		require.Error(t, err, "%q", name)
	}
}
