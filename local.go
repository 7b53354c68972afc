package plan

import (
	"io/fs"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/localfs"
)

// LocalBackend stores plans under one root folder on the local disk, safe for goroutines
// and for processes sharing the folder. Writes are atomic (a reader sees the old file or the
// new one, a crash leaves only whole files) and durable (the file synced, renamed into place, and its folder synced); no path,
// "..", or link reaches outside the root. On Linux, macOS, the BSDs and illumos it locks
// each plan across processes, so guarded writes are atomic across processes on one machine.
// Close releases the folder; Root names it.
type LocalBackend = localfs.Backend

// LocalOption configures NewLocalBackend.
type LocalOption = localfs.Option

// NewLocalBackend returns a LocalBackend rooted at root, creating the folder (mode 0700 by
// default) if it is missing. The root itself may be reached through links; nothing below
// it may lead back out.
func NewLocalBackend(root string, opts ...LocalOption) (*LocalBackend, error) {
	return localfs.New(root, opts...)
}

// WithMaxFileSize sets the largest file a LocalBackend reads (default 16 MiB); a bigger one
// is refused from its size, never read whole.
func WithMaxFileSize(n int64) LocalOption { return localfs.WithMaxFileSize(n) }

// WithPermissions sets the mode of the folders and files a LocalBackend creates (default
// 0700 and 0600: plans are private to the user running the agent); the umask still applies.
func WithPermissions(dir, file fs.FileMode) LocalOption { return localfs.WithPermissions(dir, file) }

var (
	_ Backend          = (*LocalBackend)(nil)
	_ driver.Workspace = (*LocalBackend)(nil)
)
