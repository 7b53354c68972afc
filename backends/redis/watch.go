package redisbackend

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/redis/go-redis/v9"
)

// watchBuffer is how many events a feed holds for a receiver that is not reading; past that
// it drops them and sends one Resync once there is room again.
const watchBuffer = 256

// watchPing is how long a feed waits for a message before it checks the connection.
const watchPing = 5 * time.Second

// WatchFiles returns a feed of every write and delete of a file directly inside dir, made
// by any process on the same Redis and prefix. The script that changes a file publishes
// its event (path and whole new content, or the delete) in the same atomic step, on the
// folder's channel in the folder's slot (sharded pub/sub on Redis 7, so it follows the
// slot on a Cluster): events arrive in the order the changes landed, and none is missed
// while the subscription holds. Any client may publish on that channel, so a message is
// only a hint: the feed reads the file back and delivers a write only while the file holds
// the content it carries, a delete only once the file is gone, and drops any other message
// (one the scripts never sent, or one the file has moved past: the message of the change
// that moved it follows and is delivered in its turn; the Store reads the revisions between
// from its history). When it does not (the connection drops, the slot moves,
// the receiver falls watchBuffer events behind) the feed subscribes again and sends one
// FileEvent with Resync set, after which the receiver must re-read dir. Every change that
// lands after WatchFiles returns is delivered or covered by a Resync. The channel is closed
// when ctx ends.
func (b *Backend) WatchFiles(ctx context.Context, dir string) (<-chan driver.FileEvent, error) {
	d := cleanPath(dir)
	ch := b.channel(d)
	ps, err := b.subscribe(ctx, ch)
	if err != nil {
		return nil, fmt.Errorf("redis backend: watch %s: %w", d, err)
	}
	in := make(chan driver.FileEvent)
	out := make(chan driver.FileEvent, watchBuffer)
	go b.receive(ctx, ps, ch, in)
	go forward(ctx, in, out)
	return out, nil
}

// subscribe opens a subscription on ch and returns once the server has confirmed it. On a
// Cluster it subscribes on the master of ch's slot, checked before and after: a replica
// would accept the subscription too, but could miss messages while the cluster is still
// learning its new shape, and a master that loses the slot later tells its subscribers.
func (b *Backend) subscribe(ctx context.Context, ch string) (*redis.PubSub, error) {
	if b.cluster != nil && b.sharded {
		return b.subscribeOnMaster(ctx, ch)
	}
	if b.sharded {
		return confirm(ctx, b.client.SSubscribe(ctx, ch))
	}
	return confirm(ctx, b.client.Subscribe(ctx, ch))
}

func (b *Backend) subscribeOnMaster(ctx context.Context, ch string) (*redis.PubSub, error) {
	node, err := b.cluster.MasterForKey(ctx, ch)
	if err != nil {
		return nil, err
	}
	if err := ownsSlotOf(ctx, node, ch); err != nil {
		b.cluster.ReloadState(ctx)
		return nil, err
	}
	ps, err := confirm(ctx, node.SSubscribe(ctx, ch))
	if err != nil {
		return nil, err
	}
	if err := ownsSlotOf(ctx, node, ch); err != nil {
		ps.Close()
		b.cluster.ReloadState(ctx)
		return nil, err
	}
	return ps, nil
}

// confirm waits for the server's confirmation of the subscription ps opened.
func confirm(ctx context.Context, ps *redis.PubSub) (*redis.PubSub, error) {
	for {
		msg, err := ps.ReceiveTimeout(ctx, watchPing)
		if err != nil {
			ps.Close()
			return nil, err
		}
		if s, ok := msg.(*redis.Subscription); ok && (s.Kind == "ssubscribe" || s.Kind == "subscribe") {
			return ps, nil
		}
	}
}

// ownsSlotOf checks that node is, by its own account, the master serving ch's slot.
func ownsSlotOf(ctx context.Context, node *redis.Client, ch string) error {
	slot, err := node.ClusterKeySlot(ctx, ch).Result()
	if err != nil {
		return err
	}
	nodes, err := node.ClusterNodes(ctx).Result()
	if err != nil {
		return err
	}
	for line := range strings.Lines(nodes) {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.Contains(f[2], "myself") {
			continue
		}
		if !strings.Contains(f[2], "master") {
			return fmt.Errorf("%s is not a master", node.Options().Addr)
		}
		for _, r := range f[8:] {
			lo, hi, found := strings.Cut(r, "-")
			if !found {
				hi = lo
			}
			a, err1 := strconv.ParseInt(lo, 10, 64)
			z, err2 := strconv.ParseInt(hi, 10, 64)
			if err1 == nil && err2 == nil && a <= slot && slot <= z {
				return nil
			}
		}
		return fmt.Errorf("%s does not serve slot %d", node.Options().Addr, slot)
	}
	return fmt.Errorf("%s did not describe itself", node.Options().Addr)
}

// receive turns messages into events on in until ctx ends. A lost subscription is replaced
// by a new one, then reported as a Resync.
func (b *Backend) receive(ctx context.Context, ps *redis.PubSub, ch string, in chan<- driver.FileEvent) {
	defer close(in)
	var mu sync.Mutex
	cur := ps
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		cur.Close()
		mu.Unlock()
	})
	defer stop()
	pinged := false
	for {
		msg, err := cur.ReceiveTimeout(ctx, watchPing)
		if ctx.Err() != nil {
			return
		}
		lost := false
		var ne net.Error
		switch {
		case err != nil && errors.As(err, &ne) && ne.Timeout() && !pinged:
			pinged = true
			lost = cur.Ping(ctx) != nil
		case err != nil:
			lost = true
		default:
			pinged = false
			switch m := msg.(type) {
			case *redis.Message:
				if ev, ok := parseEvent(m.Payload); ok {
					if ev, ok = b.confirm(ctx, ev); ok && !send(ctx, in, ev) {
						return
					}
				}
			case *redis.Subscription:
				lost = m.Kind == "sunsubscribe" || m.Kind == "unsubscribe"
			}
		}
		if !lost {
			continue
		}
		cur.Close()
		next := b.resubscribe(ctx, ch)
		if next == nil {
			return
		}
		mu.Lock()
		cur = next
		mu.Unlock()
		if ctx.Err() != nil {
			next.Close()
			return
		}
		pinged = false
		if !send(ctx, in, driver.FileEvent{Resync: true}) {
			return
		}
	}
}

// resubscribe subscribes again, backing off while the server or the slot's owner is not
// reachable; nil when ctx ended first.
func (b *Backend) resubscribe(ctx context.Context, ch string) *redis.PubSub {
	for attempt := 0; ; attempt++ {
		ps, err := b.subscribe(ctx, ch)
		if err == nil {
			return ps
		}
		if b.cluster != nil {
			b.cluster.ReloadState(ctx)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(min(time.Duration(attempt+1)*50*time.Millisecond, time.Second)):
		}
	}
}

func send(ctx context.Context, in chan<- driver.FileEvent, ev driver.FileEvent) bool {
	select {
	case in <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// forward passes events from in to out without ever blocking on out: an event that finds
// out full is dropped, and one Resync follows as soon as out has room.
func forward(ctx context.Context, in <-chan driver.FileEvent, out chan<- driver.FileEvent) {
	defer close(out)
	pending := false
	for {
		if pending {
			select {
			case out <- driver.FileEvent{Resync: true}:
				pending = false
			case _, ok := <-in:
				if !ok {
					return
				}
			case <-ctx.Done():
				return
			}
			continue
		}
		select {
		case ev, ok := <-in:
			if !ok {
				return
			}
			select {
			case out <- ev:
			default:
				pending = true
			}
		case <-ctx.Done():
			return
		}
	}
}

// parseEvent decodes "w <len> <path><content>" or "d <len> <path>".
func parseEvent(payload string) (driver.FileEvent, bool) {
	if len(payload) < 2 || payload[1] != ' ' || (payload[0] != 'w' && payload[0] != 'd') {
		return driver.FileEvent{}, false
	}
	n, rest, ok := strings.Cut(payload[2:], " ")
	size, err := strconv.Atoi(n)
	if !ok || err != nil || size < 0 || size > len(rest) {
		return driver.FileEvent{}, false
	}
	ev := driver.FileEvent{Path: rest[:size]}
	if payload[0] == 'd' {
		ev.Deleted = true
	} else {
		ev.Content = rest[size:]
	}
	return ev, true
}
