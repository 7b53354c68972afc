package driver

import "context"

// FolderStamper is an optional Backend capability: a cheap stamp of the folder dir that
// differs after any file directly inside it is created, replaced or removed through the
// Backend, so the Store answers List from its cache, without listing the folder, while the
// stamp stays. recent reports that the folder changed so lately that a second change could
// still leave the stamp as it is (a coarse clock); the Store then lists anyway. A stamp that
// misses files other programs rewrite in place (a folder's time on disk) must come from a
// Backend whose ModifiedAt is not strict (StrictModTimer): the Store then lists at least
// every few seconds.
type FolderStamper interface {
	FolderStamp(ctx context.Context, dir string) (stamp string, recent bool, err error)
}
