package redisbackend

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// FolderStamp returns a stamp of the folder dir that changes with every write or delete of a
// file directly inside it, in one round trip: the group's clock, which every write moves
// forward, and the number of entries in the folder's index, which a delete lowers (a delete
// that comes with a write moves the clock). The Store lists the folder only when the stamp
// moved. No write leaves the stamp as it was, so recent is always false.
func (b *Backend) FolderStamp(ctx context.Context, dir string) (string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	dir = cleanPath(dir)
	var clock *redis.StringCmd
	var entries *redis.IntCmd
	b.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		clock = p.Get(ctx, b.clockKey(groupOf(dir)))
		entries = p.HLen(ctx, b.dirKey(dir))
		return nil
	})
	for _, err := range []error{clock.Err(), entries.Err()} {
		if err != nil && err != redis.Nil {
			return "", false, fmt.Errorf("redis backend: stamp %s: %w", dir, err)
		}
	}
	return clock.Val() + "/" + strconv.FormatInt(entries.Val(), 10), false, nil
}
