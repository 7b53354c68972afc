//go:build !unix

package localfs

import "io/fs"

// localOpenNonblock is zero where named pipes cannot appear in a folder tree.
const localOpenNonblock = 0

// localSyncDirs is false where a folder cannot be opened for syncing; a rename there is as
// durable as the file system makes it.
const localSyncDirs = false

// hardLinked is false where the link count is not reported.
func hardLinked(fs.FileInfo) bool { return false }
