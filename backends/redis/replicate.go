package redisbackend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrNotReplicated is wrapped by the error of a call that fewer replicas than
// WithReplicaAcks asks for acknowledged in time: a write the primary applied, or a
// conditional call whose comparison failed against bytes not yet replicated. Whether the
// write (or those bytes) survives a failover is unknown; resending the same conditional
// call is safe, and its (false, nil) then means the bytes it compared against are
// replicated, so a re-read can tell whether the first attempt landed.
var ErrNotReplicated = errors.New("written on the primary but not acknowledged by enough replicas in time")

// run runs one mutation script and returns its result bits. With WithReplicaAcks the script
// and a WAIT go down one connection to the slot's primary in one round trip, so the WAIT
// covers exactly this connection's write.
func (b *Backend) run(ctx context.Context, m *mutation) (int64, error) {
	script, keys, args := m.script, m.keys, m.args
	if b.replicas == 0 {
		return script.Run(ctx, b.client, keys, args...).Int64()
	}
	for attempt := 0; ; attempt++ {
		node, err := b.primaryFor(ctx, keys[0])
		if err != nil {
			return 0, err
		}
		var res *redis.Cmd
		var acks *redis.Cmd
		_, _ = node.Pipelined(ctx, func(p redis.Pipeliner) error {
			res = script.EvalSha(ctx, p, keys, args...)
			acks = p.Do(ctx, "WAIT", b.replicas, b.waitTimeout.Milliseconds())
			return nil
		})
		err = res.Err()
		if redis.HasErrorPrefix(err, "NOSCRIPT") && attempt < 3 {
			if err := script.Load(ctx, node).Err(); err != nil {
				return 0, err
			}
			continue
		}
		if b.cluster != nil && attempt < 10 && (isRedirect(err) || redis.HasErrorPrefix(err, "CLUSTERDOWN") || redis.HasErrorPrefix(err, "TRYAGAIN")) {
			// The slot moved (a failover, a reshard); nothing ran. Ask again where it is.
			b.cluster.ReloadState(ctx)
			select {
			case <-ctx.Done():
				return 0, ctx.Err()
			case <-time.After(time.Duration(attempt+1) * 50 * time.Millisecond):
			}
			continue
		}
		if err != nil {
			return 0, err
		}
		n, err := res.Int64()
		if err != nil {
			return 0, err
		}
		if n&resultApplied == 0 && !m.conditional {
			return n, nil // an unconditional call that found nothing to do wrote nothing
		}
		got, err := acks.Int64()
		if err != nil {
			return 0, fmt.Errorf("WAIT: %w", err)
		}
		if got < int64(b.replicas) {
			return 0, fmt.Errorf("%w: %d of %d replicas within %v", ErrNotReplicated, got, b.replicas, b.waitTimeout)
		}
		return n, nil
	}
}

func isRedirect(err error) bool {
	_, moved := redis.IsMovedError(err)
	_, ask := redis.IsAskError(err)
	return moved || ask
}

// primaryFor returns a client on the primary holding key: the client itself on a single
// server, the slot's master on a Cluster.
func (b *Backend) primaryFor(ctx context.Context, key string) (*redis.Client, error) {
	if b.cluster != nil {
		return b.cluster.MasterForKey(ctx, key)
	}
	c, ok := b.client.(*redis.Client)
	if !ok {
		return nil, fmt.Errorf("WithReplicaAcks needs a *redis.Client or *redis.ClusterClient, not %T", b.client)
	}
	return c, nil
}
