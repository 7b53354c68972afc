package redisbackend

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan/driver"
)

// confirmScript tells how the file whose content key is KEYS[1] stands against an event:
// 0 when it does not exist, 1 when it holds exactly ARGV[1] (ARGV[2] is "w" for a write),
// 2 otherwise.
var confirmScript = redis.NewScript(`local v = redis.call('GET', KEYS[1])
if not v then return 0 end
if ARGV[2] == 'w' and v == ARGV[1] then return 1 end
return 2
`)

// confirm reads back the file an event names before it is delivered: any client may
// PUBLISH on the folder's channel, so a message is only a hint, and the stored file
// decides. A write is delivered while the file holds exactly the content it carries, a
// delete once the file is gone. Any other message is dropped: either the scripts never
// sent it, or the file has moved on since, and then the message of the change that moved
// it follows on the same channel and is delivered in its turn (a receiver that keeps
// history, as the Store does, reads the revisions between from there). ok is false for a
// message that is dropped; a file that cannot be read back gives a Resync.
func (b *Backend) confirm(ctx context.Context, ev driver.FileEvent) (out driver.FileEvent, ok bool) {
	p, err := toFilePath(ev.Path)
	if err != nil {
		return ev, false
	}
	op := "w"
	if ev.Deleted {
		op = "d"
	}
	st, err := confirmScript.Run(ctx, b.client, []string{b.contentKey(p)}, ev.Content, op).Int()
	switch {
	case err != nil:
		return driver.FileEvent{Resync: true}, ctx.Err() == nil
	case ev.Deleted && st == 0, !ev.Deleted && st == 1:
		return ev, true
	default:
		return ev, false
	}
}
