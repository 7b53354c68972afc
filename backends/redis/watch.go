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
// the receiver falls driver.FeedBuffer events behind) the feed subscribes again and sends one
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
	s := &subscription{b: b, ch: ch, cur: ps}
	context.AfterFunc(ctx, s.Close) // the feed ends only with ctx
	return driver.Feed(ctx, s), nil
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

// subscription is the driver.Listener of one WatchFiles: its channel and the current
// subscription, which ctx's end closes to stop a wait.
type subscription struct {
	b      *Backend
	ch     string
	mu     sync.Mutex
	cur    *redis.PubSub
	pinged bool // a ping went out when the last wait timed out: a second timeout is a loss
}

// Receive turns the next message into an event: a write or delete the file confirms
// (watch_confirm.go); a lost subscription is an error.
func (s *subscription) Receive(ctx context.Context) (driver.FileEvent, bool, error) {
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	msg, err := cur.ReceiveTimeout(ctx, watchPing)
	var ne net.Error
	switch {
	case err != nil && errors.As(err, &ne) && ne.Timeout() && !s.pinged:
		s.pinged = true
		return driver.FileEvent{}, false, cur.Ping(ctx)
	case err != nil:
		return driver.FileEvent{}, false, err
	}
	s.pinged = false
	switch m := msg.(type) {
	case *redis.Message:
		if ev, ok := parseEvent(m.Payload); ok {
			ev, ok = s.b.confirm(ctx, ev)
			return ev, ok, nil
		}
	case *redis.Subscription:
		if m.Kind == "sunsubscribe" || m.Kind == "unsubscribe" {
			return driver.FileEvent{}, false, errors.New("redis backend: unsubscribed from " + s.ch)
		}
	}
	return driver.FileEvent{}, false, nil
}

// Listen subscribes again; on a Cluster a failure reloads the slots' owners for the next try.
func (s *subscription) Listen(ctx context.Context) error {
	ps, err := s.b.subscribe(ctx, s.ch)
	if err != nil {
		if s.b.cluster != nil {
			s.b.cluster.ReloadState(ctx)
		}
		return err
	}
	s.mu.Lock()
	s.cur = ps
	s.mu.Unlock()
	s.pinged = false
	return nil
}

// Close closes the current subscription; ctx's end calls it too, to stop a wait.
func (s *subscription) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cur.Close() // a second Close only returns an error
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
