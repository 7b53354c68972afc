//go:build unix

package plan

import "syscall"

// localOpenNonblock makes opening a named pipe return at once instead of waiting for a
// writer; regular files ignore it.
const localOpenNonblock = syscall.O_NONBLOCK

// localSyncDirs reports whether a folder can be synced, making renames and removals in it
// durable.
const localSyncDirs = true
