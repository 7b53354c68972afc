package redisbackend

import "time"

// Option configures a Backend.
type Option func(*Backend)

// DefaultPrefix is the key prefix used when no WithPrefix option is given.
const DefaultPrefix = "plan:"

// WithPrefix sets the prefix of every key the Backend reads or writes; the Backend owns all
// keys under it. Any prefix works on a single server. On Redis Cluster the Backend adds a
// hash tag per plan folder after the prefix, so the prefix must not hold an empty tag "{}"
// (New refuses it); a prefix with a tag of its own, such as "{plan}:", puts every folder on
// one slot, which works but spreads nothing.
func WithPrefix(p string) Option {
	return func(b *Backend) { b.prefix = p }
}

// AcceptPlanLossOnEviction lets New accept a server whose maxmemory-policy may evict keys.
// With it, a full server may silently drop a plan's bytes or a whole folder index: the
// Backend then reports a plan whose bytes are gone (List warns, reads fail, a create-only
// write of that name is refused) but cannot bring it back, and a folder index that was
// evicted hides its plans. Without it New refuses any policy but noeviction.
func AcceptPlanLossOnEviction() Option {
	return func(b *Backend) { b.allowEviction = true }
}

// WithReplicaAcks makes every write wait, before it is reported done, until n replicas of
// the primary that took it acknowledge it (Redis WAIT, at most timeout). A write that
// fewer replicas acknowledge in time is reported as an error wrapping ErrNotReplicated: it
// may or may not survive a failover, and the Store resolves it by resending (see
// ErrNotReplicated). With n = 0 (the default) a write is done when the primary has it, and
// a failover to a replica that had not received it yet loses it. Keep timeout below the
// client's ReadTimeout.
func WithReplicaAcks(n int, timeout time.Duration) Option {
	return func(b *Backend) { b.replicas, b.waitTimeout = n, timeout }
}
