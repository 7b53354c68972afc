// Package driver holds what only Backend authors need: the optional capabilities the plan
// Store looks for on a Backend, the errors a Backend wraps, and two helpers: LineWindow
// applies an Eino read request's line window, Feed runs a Watcher's listen loop.
//
// The Store finds a capability on the Backend itself or along its Unwrap chain; a Locker
// also on a Backend embedded as an anonymous field (driver.Unwrapper tells why). A Backend
// needs none of the capabilities to work: each one lifts a limit the Store otherwise
// documents (writes atomic across processes or machines, bounded reads, deletes on a full
// disk, push watching) or spares it work (syncs, round trips, listings).
//
// Package backendtest's RunBackendSuite checks a Backend against the file contract the Store
// relies on and checks the capabilities its "capabilities" case covers; WatchEveryRevision
// checks Store.Watch on top of a Backend.
package driver

import (
	"context"
	"errors"
	"strings"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
)

// ErrNotRegularFile is wrapped by Backend errors for an entry that exists but can never hold a
// plan: a folder, a symbolic or hard link, a named pipe, a socket or a device. The Store
// reports such an entry as corrupt, lists it as a warning, and an unguarded delete removes it.
var ErrNotRegularFile = errors.New("not a regular file")

// Locker is an optional Backend capability the Store discovers: an exclusive lock on dir that
// also excludes other processes (and other Backend values on the same storage). The Store
// holds it around every read-check-write, so guarded writes are atomic beyond one process.
// Since the lock covers the whole folder, the Store calls Lock once at a time per process and
// folder, and writes to distinct plans wait for each other; a PlanLocker lifts that.
// A lock must not outlive a crashed holder.
type Locker interface {
	Lock(ctx context.Context, dir string) (unlock func(), err error)
}

// PlanLocker is a Locker that can also lock one plan of a folder. LockPlan(dir, name)
// excludes every other LockPlan of the same dir and name and every Lock(dir), in this and any
// other process. It is meant not to wait for a LockPlan of another name; where it must (the
// platform offers no finer lock, so it takes Lock(dir)), it is slower but as safe. The Store
// holds it around every read-check-write of that plan, its history and its tombstone, so
// guarded writes stay atomic beyond one process while distinct plans never wait for each
// other. A lock must not outlive a crashed holder, nor leave more than a bounded number of
// files behind.
type PlanLocker interface {
	Locker
	LockPlan(ctx context.Context, dir, name string) (unlock func(), err error)
}

// Swapper is an optional Backend capability the Store discovers: conditional writes that
// succeed only when the stored bytes are still those the Store read. It makes guarded
// writes atomic across machines without any lease that could expire under a stalled writer.
type Swapper interface {
	// CompareAndSwap writes req.Content to req.FilePath only if the file's current content
	// equals *old, or, when old is nil, only if the file does not exist. It reports whether
	// it wrote; (false, nil) means the precondition failed.
	CompareAndSwap(ctx context.Context, req *filesystem.WriteRequest, old *string) (bool, error)
	// CompareAndDelete deletes req.FilePath only if its current content equals old.
	CompareAndDelete(ctx context.Context, req *plantask.DeleteRequest, old string) (bool, error)
}

// LimitedReader is an optional capability of a Backend or Workspace: ReadAtMost returns at
// most the first max bytes of a file without loading the rest. The Store asks for cap+1
// bytes, so an oversized file is refused without being read whole.
type LimitedReader interface {
	ReadAtMost(ctx context.Context, filePath string, max int64) (string, error)
}

// Renamer is an optional Backend capability: Rename moves a file atomically, replacing
// whatever is at to, and then, when keep >= 0, cuts the moved file to its first keep bytes.
// The Store records a deletion by moving the plan file onto its tombstone and keeping only
// its header, which allocates no data blocks, so a plan can be deleted on a full disk and
// the deletion frees its space.
type Renamer interface {
	Rename(ctx context.Context, from, to string, keep int64) error
}

// OnceWriter is an optional Backend capability for files written once under a fresh name and
// never rewritten, such as history entries (whose names carry their content's hash):
// WriteOnce may skip what makes Write atomic and durable, so after a crash such a file may be
// missing or cut short. The Store verifies every entry it reads against that hash, so it
// never shows one that was cut short.
type OnceWriter interface {
	WriteOnce(ctx context.Context, req *filesystem.WriteRequest) error
}

// StrictModTimer is an optional Backend capability: StrictModTimes reports that every write
// gives a file a ModifiedAt no earlier write had, so the Store may cache a summary the moment
// it reads it instead of waiting out the file system's clock granularity.
type StrictModTimer interface {
	StrictModTimes() bool
}

// Watcher is an optional Backend capability: a push feed of every change any process or
// machine makes to the files directly inside dir, so Store.Watch needs no polling. Events
// for one file arrive in the order the writes landed. A feed that cannot keep up (a lost
// connection, a full buffer) sends one FileEvent with Resync set instead of dropping events
// silently; the channel is closed when ctx ends.
type Watcher interface {
	WatchFiles(ctx context.Context, dir string) (<-chan FileEvent, error)
}

// FileEvent is one change a Watcher reports.
type FileEvent struct {
	// Path is the file written or deleted (empty with Resync).
	Path string
	// Content is the file's whole new content after a write; empty after a delete.
	Content string
	// Deleted reports a delete.
	Deleted bool
	// Resync reports that events may have been missed: the receiver must re-read dir.
	Resync bool
}

// ErrOutsideRoot is wrapped by a Backend error for a path that does not name a place inside
// the storage: one that climbs out with "..", passes through a link that leads outside, or
// cannot be a file name at all. Nothing is read or written for such a path, and the Store
// treats what stands there as a stray entry.
var ErrOutsideRoot = errors.New("path is outside the backend root")

// ErrNotWritten is wrapped by a Swapper's error when it knows that nothing was written (the
// request never left, or was refused before it ran). Any other error from a conditional
// write leaves the outcome open, and the Store resolves it before reporting anything.
var ErrNotWritten = errors.New("plan: nothing was written")

// LineWindow applies the 1-based line Offset and the line Limit of an Eino ReadRequest to a
// whole file's content, as a Backend's Read must; zero values mean everything. Lines keep
// their line endings, so a window that reaches the end is the file's exact tail.
func LineWindow(content string, offset, limit int) string {
	if offset <= 1 && (limit <= 0 || strings.Count(content, "\n") < limit) {
		return content
	}
	lines := strings.SplitAfter(content, "\n")
	start := offset - 1
	if start < 0 {
		start = 0
	}
	if start >= len(lines) {
		return ""
	}
	end := len(lines)
	if limit > 0 && start+limit < end {
		end = start + limit
	}
	return strings.Join(lines[start:end], "")
}
