package redisbackend

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// FolderStamp returns a stamp of the folder dir that changes with every write or delete of a
// file directly inside it, in one round trip: the clock of the folder's group, which every
// write and delete script moves forward (and nothing else moves). The Store lists the
// folder only when the stamp moved. No change leaves the stamp as it was, so recent is
// always false.
func (b *Backend) FolderStamp(ctx context.Context, dir string) (string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	dir = cleanPath(dir)
	clock, err := b.client.Get(ctx, b.clockKey(groupOf(dir))).Result()
	if err != nil && err != redis.Nil {
		return "", false, fmt.Errorf("redis backend: stamp %s: %w", dir, err)
	}
	return "c" + clock, false, nil
}
