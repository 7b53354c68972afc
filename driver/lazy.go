package driver

import "context"

// LazyDeleter is an optional Backend capability for removing files whose removal need not
// survive a crash, such as history entries pruned past the kept bounds: DeleteLazily may skip
// what makes Delete durable (a sync of the folder), so after a crash such a file may be back.
// The Store never shows an entry past its bounds and removes it again at a later prune, so a
// change costs the one durable write of its plan file and nothing more. A missing file is not
// an error.
type LazyDeleter interface {
	DeleteLazily(ctx context.Context, path string) error
}
