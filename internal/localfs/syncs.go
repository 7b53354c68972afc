package localfs

import (
	"os"
	"sync/atomic"
)

var syncCalls atomic.Int64

// Syncs is how many fsync calls Backends of this process have made, files and folders
// alike: what a change costs the disk, counted by the tests and benchmarks that hold the
// Store to one durable write per change.
func Syncs() int64 { return syncCalls.Load() }

// fsync syncs f to stable storage, counting the call.
func fsync(f *os.File) error {
	syncCalls.Add(1)
	return f.Sync()
}
