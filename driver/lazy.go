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

// EntrySwapper is an optional Backend capability that writes a plan file and its history
// entry in one request. CompareAndSwapWithEntry writes entry (a file under a fresh name that
// is never rewritten, with OnceWriter's durability) and then does what CompareAndSwap does
// with req and old, so a change to a plan on remote storage costs one round trip. The entry
// may be written even when the swap is not; the Store then deletes it. A wrapper that
// changes what CompareAndSwap does must offer this method too, or hide it.
type EntrySwapper interface {
	CompareAndSwapWithEntry(ctx context.Context, req *filesystem.WriteRequest, old *string, entry *filesystem.WriteRequest) (bool, error)
}
