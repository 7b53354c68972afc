//go:build linux

package einoext_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bind mount is the folder or file it mounts: read_file and grep through a bind mount of the
// plans folder, and read_file of a bind mount of the key, are refused. Mounting needs
// CAP_SYS_ADMIN: the test is skipped without it.
func TestFileToolsRefuseBindMountsOfThePlansFolderAndTheKey(t *testing.T) {
	c, key, secret := withKey(t, "release", "# Release\n- [ ] Build\n")
	mounted := filepath.Join(t.TempDir(), "docs")
	keyMount := filepath.Join(t.TempDir(), "settings.txt")
	require.NoError(t, os.Mkdir(mounted, 0o700))
	require.NoError(t, os.WriteFile(keyMount, nil, 0o600))
	if err := syscall.Mount(filepath.Join(c.root, "plans"), mounted, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mounted, 0) })
	require.NoError(t, syscall.Mount(key, keyMount, "", syscall.MS_BIND, ""))
	t.Cleanup(func() { _ = syscall.Unmount(keyMount, 0) })

	results := c.run(t,
		call(t, "read_file", map[string]any{"file_path": filepath.Join(mounted, "release.md")}),
		call(t, "grep", map[string]any{"pattern": "Build", "path": mounted}),
		call(t, "read_file", map[string]any{"file_path": keyMount}),
	)
	allRefused(t, results, 3)
	assert.NotContains(t, results[2], strings.TrimSpace(string(secret)))
}
