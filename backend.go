package plan

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
)

// FileInfo is what LsInfo reports for one entry. The Store uses only the base name of Path,
// IsDir, Size and ModifiedAt; Size and ModifiedAt together key the list cache, so a backend
// that leaves ModifiedAt empty is simply never cached.
type FileInfo = filesystem.FileInfo

// FileContent is what Read returns.
type FileContent = filesystem.FileContent

// LsInfoRequest asks for the entries directly inside Path.
type LsInfoRequest = filesystem.LsInfoRequest

// ReadRequest asks for a file. The Store always asks for the whole file explicitly: Offset 1
// and a Limit of more lines than the largest file it accepts can hold, never Limit 0 (which
// some backends read as "the first 2,000 lines").
type ReadRequest = filesystem.ReadRequest

// WriteRequest replaces a whole file with Content.
type WriteRequest = filesystem.WriteRequest

// DeleteRequest removes one file. Deleting a missing file is not an error. It is the type of
// Eino's plantask, so a backend written for plantask is a Backend as it is.
type DeleteRequest = plantask.DeleteRequest

// Backend stores bytes at paths. It is the same shape as the Backend of Eino's plantask
// middleware, so any Eino filesystem backend that can also delete fits.
//
// What the Store needs of a Backend:
//   - Write replaces a whole file atomically: a reader sees the old or the new content.
//   - Read returns the whole file when asked for Offset 1 and a large Limit; the Store checks
//     what comes back against the size LsInfo reports, where it reports one.
//   - Read of a missing file returns an error for which errors.Is(err, fs.ErrNotExist) holds;
//     backends that only say "not found" in the message are recognised as well.
//   - An entry that can never hold a plan (a link, a pipe, a folder) is refused with an error
//     wrapping ErrNotRegularFile, and Delete removes the entry itself.
//
// All plan semantics (names, revisions, locking) live in the Store, never in a Backend.
// A wrapper (logging, metrics) should have an Unwrap() Backend method: the Store then sees
// that it shares storage with what it wraps and finds the capabilities below through it.
type Backend interface {
	LsInfo(ctx context.Context, req *LsInfoRequest) ([]FileInfo, error)
	Read(ctx context.Context, req *ReadRequest) (*filesystem.FileContent, error)
	Write(ctx context.Context, req *WriteRequest) error
	Delete(ctx context.Context, req *DeleteRequest) error
}

// Workspace is the agent's own file system, used by export_plan_to_file and
// update_plan_from_file. Any Eino filesystem.Backend satisfies it, so the export → edit →
// update loop runs on the same files the agent's file tools see.
type Workspace interface {
	Read(ctx context.Context, req *ReadRequest) (*filesystem.FileContent, error)
	Write(ctx context.Context, req *WriteRequest) error
}

// ErrNotRegularFile is wrapped by Backend errors for an entry that exists but can never hold a
// plan: a folder, a symbolic or hard link, a named pipe, a socket or a device. The Store
// reports such an entry as corrupt, lists it as a warning, and an unguarded delete removes it.
var ErrNotRegularFile = errors.New("not a regular file")

// Unwrapper is implemented by a Backend that wraps another one (logging, metrics, retries).
// The Store follows Unwrap to the innermost Backend to recognise two values on one storage,
// so they share one lock, and to find Locker, Swapper, LimitedReader, Renamer, Watcher and
// StrictModTimer, which it then calls in the wrapper's place. A wrapper that changes the
// bytes or the paths (encryption, a prefix) must not expose Unwrap. A wrapper that only
// embeds a Backend as an anonymous field is followed for the storage's identity and its
// Locker, never for the other capabilities, since it may override any method.
type Unwrapper interface {
	Unwrap() Backend
}

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
	CompareAndSwap(ctx context.Context, req *WriteRequest, old *string) (bool, error)
	// CompareAndDelete deletes req.FilePath only if its current content equals old.
	CompareAndDelete(ctx context.Context, req *DeleteRequest, old string) (bool, error)
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
	WriteOnce(ctx context.Context, req *WriteRequest) error
}

// StrictModTimer is an optional Backend capability: StrictModTimes reports that every write
// gives a file a ModifiedAt no earlier write had, so the Store may cache a summary the moment
// it reads it instead of waiting out the file system's clock granularity.
type StrictModTimer interface {
	StrictModTimes() bool
}

// isNotExist reports whether err means "no such file", for backends that wrap fs.ErrNotExist
// and for those (such as Eino's InMemoryBackend) that only say so in the message.
func isNotExist(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "not found") || strings.Contains(msg, "no such file") ||
		strings.Contains(msg, "not exist")
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

// ErrNotWritten is wrapped by a Swapper's error when it knows that nothing was written (the
// request never left, or was refused before it ran). Any other error from a conditional
// write leaves the outcome open, and the Store resolves it before reporting anything.
var ErrNotWritten = errors.New("plan: nothing was written")
