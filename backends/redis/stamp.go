package redisbackend

import (
	"context"
	"fmt"
)

// FolderStamp returns a stamp of the folder dir that changes with every write or delete of a
// file directly inside it, in one round trip: the clock of the folder's group, which every
// write and delete script moves forward, and the size of the folder's index, which moves
// with every file created or removed there (by any release of this backend), read
// together by one script. The Store lists the folder only when the stamp moved. No change
// leaves the stamp as it was, so recent is always false.
func (b *Backend) FolderStamp(ctx context.Context, dir string) (string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	dir = cleanPath(dir)
	stamp, err := stampScript.Run(ctx, b.client, []string{b.clockKey(groupOf(dir)), b.dirKey(dir)}).Text()
	if err != nil {
		return "", false, fmt.Errorf("redis backend: stamp %s: %w", dir, err)
	}
	return stamp, false, nil
}
