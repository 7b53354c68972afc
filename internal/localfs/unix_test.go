//go:build unix

package localfs

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
	"github.com/einoplan/plan/driver"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// within fails the test if f has not returned after d, instead of letting a blocked open
// hang the whole run.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s blocked for %v", what, d)
	}
}

func TestLocalBackendNamedPipe(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans"), 0o700))
	fifo := filepath.Join(root, "plans", "a.md")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	within(t, 5*time.Second, "Read of a named pipe", func() {
		_, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/plans/a.md"})
		assert.ErrorIs(t, err, driver.ErrNotRegularFile)
		assert.Contains(t, err.Error(), "named pipe")
	})
	within(t, 5*time.Second, "ReadAtMost of a named pipe", func() {
		_, err := b.ReadAtMost(ctx, "/plans/a.md", 10)
		assert.ErrorIs(t, err, driver.ErrNotRegularFile)
	})
	within(t, 5*time.Second, "LsInfo next to a named pipe", func() {
		infos, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/plans"})
		require.NoError(t, err)
		require.Len(t, infos, 1)
		assert.False(t, infos[0].IsDir)
	})
	within(t, 5*time.Second, "Write over a named pipe", func() {
		err := b.Write(ctx, &filesystem.WriteRequest{FilePath: "/plans/a.md", Content: "x"})
		assert.ErrorIs(t, err, driver.ErrNotRegularFile)
	})
	within(t, 5*time.Second, "LsInfo of a named pipe", func() {
		_, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/plans/a.md"})
		assert.Error(t, err)
	})
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeNamedPipe, "the pipe is left alone")

	within(t, 5*time.Second, "Delete of a named pipe", func() {
		require.NoError(t, b.Delete(ctx, &plantask.DeleteRequest{FilePath: "/plans/a.md"}))
	})
	assert.NoFileExists(t, fifo)
}

func TestLocalBackendSocketAndDevice(t *testing.T) {
	ctx := context.Background()
	b, root := newTestLocal(t)
	// Unix socket paths are short; bind relative to the root.
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(root))
	l, err := net.Listen("unix", "s.md")
	require.NoError(t, os.Chdir(wd))
	if err != nil {
		t.Skipf("unix sockets unavailable: %v", err)
	}
	defer l.Close()
	within(t, 5*time.Second, "Read of a socket", func() {
		_, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/s.md"})
		assert.ErrorIs(t, err, driver.ErrNotRegularFile)
		assert.Contains(t, err.Error(), "socket")
	})

	// /dev/zero would feed endless bytes; reach it through an in-root link is impossible, so
	// the device case is covered by a link that os.Root refuses.
	if _, err := os.Stat("/dev/zero"); err == nil {
		require.NoError(t, os.Symlink("/dev/zero", filepath.Join(root, "zero.md")))
		within(t, 5*time.Second, "Read through a link to a device", func() {
			_, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/zero.md"})
			assert.ErrorIs(t, err, driver.ErrOutsideRoot)
		})
	}
}
