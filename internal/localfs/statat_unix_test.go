//go:build unix

package localfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

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
	for _, name := range []string{"../secret.md", "..", "a\x00b", strings.Repeat("n", maxPlainName+1)} {
		seen := 0
		err := statEntries(f, folder, []string{name}, func(string, entryStat) error { seen++; return nil })
		require.Zero(t, seen, "%q", name)
		require.Error(t, err, "%q", name)
	}
}
