package driver

import (
	"context"

	"github.com/cloudwego/eino/adk/filesystem"
)

// LazyDeleter is an optional Backend capability for removing files whose removal need not
// survive a crash, such as history entries pruned past the kept bounds: DeleteLazily may skip
// what makes Delete durable (a sync of the folder) and may remove the files in one request,
// so after a crash some may be back. The Store never shows an entry past its bounds and
// removes it again at a later prune, so a change costs the one durable write of its plan
// file and nothing more. Missing files are not an error.
type LazyDeleter interface {
	DeleteLazily(ctx context.Context, paths ...string) error
}

// KeepingSwapper is an optional Backend capability that keeps the file a write replaces.
// CompareAndSwapKeeping does what CompareAndSwap does and, when it replaces a file (old not
// nil), also creates keep holding the replaced bytes, in the same request and with
// OnceWriter's durability, so a change to a plan and to its history costs one write (one
// round trip on remote storage). keep is a fresh name that is never rewritten. A refused
// swap writes nothing at all.
type KeepingSwapper interface {
	CompareAndSwapKeeping(ctx context.Context, req *filesystem.WriteRequest, old *string, keep string) (bool, error)
	Keeper
}

// Keeper tells the Store whether a keeping method may stand in for the plain one.
type Keeper interface {
	// KeepsFor reports whether v, the value the Store would otherwise call CompareAndSwap or
	// Write on, is this very value (return v == any(receiver)). A wrapper that embeds it and
	// changes CompareAndSwap or Write has this method promoted with the embedded value as
	// receiver, so it reports false, and the wrapper's own method is never bypassed.
	KeepsFor(v any) bool
}

// KeepingWriter is an optional Backend capability for storage whose writers the Store keeps
// apart with a driver.Locker: WriteKeeping does what Write does and, when it replaces a
// regular file, keeps the replaced file at keep (a fresh name that is never rewritten, with
// OnceWriter's durability), moving it there where the storage can rather than copying it, so
// a change creates no file beside the one Write creates.
type KeepingWriter interface {
	WriteKeeping(ctx context.Context, req *filesystem.WriteRequest, keep string) error
	Keeper
}
