//go:build unix

package localfs

import (
	"io/fs"
	"syscall"
)

// localOpenNonblock makes opening a named pipe return at once instead of waiting for a
// writer; regular files and folders ignore it. Opening with it also spares the four system
// calls Go otherwise makes to switch a new descriptor to non-blocking and back.
const localOpenNonblock = syscall.O_NONBLOCK

// localSyncDirs reports whether a folder can be synced, making renames and removals in it
// durable.
const localSyncDirs = true

// hardLinked reports whether the file has more than one name. Files written by a
// Backend never do: each write renames a fresh file into place.
func hardLinked(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
