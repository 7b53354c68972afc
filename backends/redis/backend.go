// Package redisbackend stores plans in Redis, so agents on many machines share one plan
// store. A Backend implements plan.Backend, driver.Swapper, driver.KeepingSwapper,
// driver.LimitedReader and driver.Watcher: the Store discovers the Swapper and makes every
// guarded write a compare-and-swap run inside Redis, atomic across processes and machines
// with no lock or lease that could expire, keeps the revision a change replaces as its
// history entry in the same script call, and Store.Watch follows changes through the
// Watcher.
//
// It runs on one server, behind Sentinel, or on Redis Cluster: the keys of one plan folder
// share one hash slot, and New refuses deployments where that or anything else the Backend
// relies on cannot hold (a Ring, replica reads, a server that may evict keys).
//
// Durability is whatever the Redis server is configured for (RDB snapshots, AOF fsync
// policy, replication); WithReplicaAcks makes each write wait for replicas.
package redisbackend

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/keptlist"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
)

// Backend keeps files as Redis keys under one prefix, with one index hash per folder. Every
// mutation is a single Lua script, so a file, its folder indexes and its ModifiedAt change
// together or not at all, and a failed call (a dropped connection, a stopped server) leaves
// nothing half-written. It is safe for concurrent use by any number of goroutines,
// processes and machines sharing the same Redis and prefix.
type Backend struct {
	client        redis.UniversalClient
	cluster       *redis.ClusterClient // client, when it is a Cluster client
	prefix        string
	allowEviction bool
	replicas      int
	waitTimeout   time.Duration
	sharded       bool                       // every node has sharded pub/sub (Redis 7)
	listings      keptlist.Folders[*listing] // of the large folders listed last
}

var (
	_ plan.Backend          = (*Backend)(nil)
	_ driver.Swapper        = (*Backend)(nil)
	_ driver.KeepingSwapper = (*Backend)(nil)
	_ driver.LazyDeleter    = (*Backend)(nil)
	_ driver.LimitedReader  = (*Backend)(nil)
	_ driver.Watcher        = (*Backend)(nil)
	_ driver.FolderStamper  = (*Backend)(nil)
)

// StrictModTimes reports that every write gives a file a ModifiedAt no earlier write in its
// group (its plan folder) had: each script takes the later of Redis TIME and one past the
// last value handed out in the group, so even a server clock stepping back never repeats
// one. The Store may therefore cache a summary the moment it reads it.
func (b *Backend) StrictModTimes() bool { return true }

// ErrContentMissing is wrapped by a read of a file that its folder's index lists but whose
// bytes are gone: evicted by a server that may evict (see AcceptPlanLossOnEviction), or
// deleted behind the Backend's back. It is not fs.ErrNotExist, so the Store reports such a
// plan (List warns, reads fail) instead of skipping it, and never re-creates it from
// revision 1. An unconditional Delete of the path clears the entry.
var ErrContentMissing = errors.New("listed in its folder's index but its bytes are gone (evicted?); delete the file to clear the entry")

// Read returns the file, honouring Offset and Limit as 1-based line numbers like Eino's
// backends. A missing file is an error wrapping fs.ErrNotExist.
func (b *Backend) Read(ctx context.Context, req *driver.ReadRequest) (*filesystem.FileContent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := toFilePath(req.FilePath)
	if err != nil {
		return nil, err
	}
	content, err := b.client.Get(ctx, b.contentKey(p)).Result()
	if errors.Is(err, redis.Nil) {
		content, err = b.readChecked(ctx, p, "all")
	}
	if err != nil {
		return nil, fmt.Errorf("redis backend: read %s: %w", p, err)
	}
	return &filesystem.FileContent{Content: driver.LineWindow(content, req.Offset, req.Limit)}, nil
}

// ReadAtMost returns at most the first limit bytes of the file; Redis sends no more than that.
// A missing file is an error wrapping fs.ErrNotExist.
func (b *Backend) ReadAtMost(ctx context.Context, filePath string, limit int64) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p, err := toFilePath(filePath)
	if err != nil {
		return "", err
	}
	content, err := b.readChecked(ctx, p, strconv.FormatInt(max(limit, 0)-1, 10))
	if err != nil {
		return "", fmt.Errorf("redis backend: read %s: %w", p, err)
	}
	return content, nil
}

// readChecked reads p (all of it, or up to the byte offset last) together with its index
// entry, so a missing file is told apart from one whose bytes are gone.
func (b *Backend) readChecked(ctx context.Context, p, last string) (string, error) {
	v, err := readScript.Run(ctx, b.client, []string{b.contentKey(p), b.dirKey(parentDir(p))}, last, path.Base(p)).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return "", fs.ErrNotExist
	case err != nil:
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", ErrContentMissing
}

// Write replaces the whole file, creating its folders as needed.
func (b *Backend) Write(ctx context.Context, req *driver.WriteRequest) error {
	_, err := b.mutate(ctx, writeScript, "write", req.FilePath, "w", req.Content, "")
	return err
}

// CompareAndSwap writes req.Content only if the stored bytes equal *old, or, when old is nil,
// only if the file neither exists nor is listed in its folder's index. The comparison runs
// inside Redis in the same script as the write, so of any number of callers expecting the
// same bytes exactly one succeeds, no matter how long any of them paused in between.
// (false, nil) means the precondition failed and nothing was written; a transport failure
// (timeout, reset connection) is always an error, never (false, nil), and resending the
// same call reports true if the first attempt had landed.
func (b *Backend) CompareAndSwap(ctx context.Context, req *driver.WriteRequest, old *string) (bool, error) {
	if old == nil {
		return b.mutate(ctx, writeScript, "write", req.FilePath, "n", req.Content, "")
	}
	return b.mutate(ctx, writeScript, "write", req.FilePath, "c", req.Content, *old)
}

// CompareAndDelete deletes the file only if its stored bytes equal old, checked and done in
// one script. (false, nil) means the file changed or is gone; transport failures are
// errors, as for CompareAndSwap.
func (b *Backend) CompareAndDelete(ctx context.Context, req *driver.DeleteRequest, old string) (bool, error) {
	return b.mutate(ctx, deleteScript, "delete", req.FilePath, "c", "", old)
}

// Delete removes the file, and any folder it leaves empty; a missing file is not an error.
func (b *Backend) Delete(ctx context.Context, req *driver.DeleteRequest) error {
	_, err := b.mutate(ctx, deleteScript, "delete", req.FilePath, "d", "", "")
	return err
}

// mutate runs one mutation script on filePath: its keys are the file, the group's clock, the
// memo and the folder indexes up to the group folder; its arguments are mode, content, old,
// a fresh token, the publish command, the channel, the path and the barrier flag, then
// the index fields. It reports whether the script applied the change.
func (b *Backend) mutate(ctx context.Context, script *redis.Script, verb, filePath, mode, content, old string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
	}
	m, err := b.mutation(script, verb, filePath, mode, content, old, memoToken(mode))
	if err != nil {
		return false, err
	}
	n, err := b.run(ctx, m)
	return b.finish(ctx, m, n, err)
}

// mutation is one call of a mutation script, ready to run.
type mutation struct {
	script     *redis.Script
	verb, path string
	group      string
	keys       []string
	args       []any
	// conditional: the call compares before it writes, so even one that writes nothing
	// waits for replicas with WithReplicaAcks (see run).
	conditional bool
}

// memoToken is a fresh token for a conditional mutation, which the memo records so that a
// resend knows it landed; "" for the others.
func memoToken(mode string) string {
	if mode == "c" || mode == "n" {
		return rand.Text()
	}
	return ""
}

// mutation builds the call of script that applies verb to filePath; token is what the memo
// records ("" records nothing).
func (b *Backend) mutation(script *redis.Script, verb, filePath, mode, content, old, token string) (*mutation, error) {
	p, err := toFilePath(filePath)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
	}
	idx, fields := b.chain(p)
	dir := parentDir(p)
	g := groupOf(dir)
	keys := make([]string, 0, 3+len(idx))
	keys = append(append(keys, b.contentKey(p), b.clockKey(g), b.memoKey(g, token)), idx...)
	args := make([]any, 0, 8+len(fields))
	args = append(args, mode, content, old, token, b.publishCommand(), b.channel(dir), p, b.barrier())
	for _, f := range fields {
		args = append(args, f)
	}
	return &mutation{script: script, verb: verb, path: p, group: g, keys: keys, args: args, conditional: mode == "c" || mode == "n"}, nil
}

// finish turns the reply n (or err) of m into its outcome, linking or unlinking the group's
// top folder in its parent when the script says so.
func (b *Backend) finish(ctx context.Context, m *mutation, n int64, err error) (bool, error) {
	if err != nil {
		if refusedBeforeRunning(err) {
			err = fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
		}
		return false, fmt.Errorf("redis backend: %s %s: %w", m.verb, m.path, err)
	}
	if n&resultRelink != 0 && m.group != "/" {
		b.relink(ctx, m.group)
	}
	return n&resultApplied != 0, nil
}

func (b *Backend) barrier() string {
	if b.replicas > 0 {
		return "1"
	}
	return ""
}

// publishCommand is the command the scripts publish change events with.
func (b *Backend) publishCommand() string {
	if b.sharded {
		return "SPUBLISH"
	}
	return "PUBLISH"
}

// refusedBeforeRunning reports a server reply that means the script never ran: the slot is
// elsewhere or unavailable, the server is out of memory, read-only, loading or busy, or the
// script is unknown. A timeout, a reset connection or any other failure leaves the outcome
// open.
func refusedBeforeRunning(err error) bool {
	var re redis.Error
	if !errors.As(err, &re) {
		return false
	}
	for _, p := range []string{"MOVED", "ASK", "CROSSSLOT", "CLUSTERDOWN", "TRYAGAIN", "OOM", "READONLY",
		"NOPERM", "NOSCRIPT", "BUSY", "LOADING", "MASTERDOWN", "NOREPLICAS", "NOAUTH"} {
		if redis.HasErrorPrefix(err, p) {
			return true
		}
	}
	return false
}
