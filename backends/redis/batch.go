package redisbackend

import (
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	"path"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/vpath"
)

// CompareAndSwapKeeping does what CompareAndSwap does and, when it replaces a file (old not
// nil), also creates keep holding the replaced bytes (driver.KeepingSwapper): one script
// call, so one round trip, that compares, writes the file, keeps the bytes it compared
// against (sent once, for both) and publishes both writes, or, when the comparison fails,
// writes nothing. With WithReplicaAcks the WAIT after it covers both files. keep is
// expected in the file's group, as the Store's history under BaseDir/.history is; one in
// another group (another hash slot) is written by a second call once the swap reported
// that it landed, and if that call fails the error says so, with the swap done.
func (b *Backend) CompareAndSwapKeeping(ctx context.Context, req *driver.WriteRequest, old *string, keep string) (bool, error) {
	if old == nil {
		return b.CompareAndSwap(ctx, req, nil) // a create replaces nothing, so keeps nothing
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
	}
	m, one, err := b.keeping(req.FilePath, req.Content, *old, keep)
	if err != nil {
		return false, err
	}
	if !one {
		ok, err := b.CompareAndSwap(ctx, req, old)
		if !ok || err != nil {
			return ok, err
		}
		if err := b.Write(ctx, &driver.WriteRequest{FilePath: keep, Content: *old}); err != nil {
			// Not ErrNotWritten, even if the keep never ran: the swap did.
			return true, fmt.Errorf("redis backend: write %s landed, but keeping the bytes it replaced at %s failed: %v", m.path, keep, err)
		}
		return true, nil
	}
	n, err := b.run(ctx, m)
	return b.finish(ctx, m, n, err)
}

// KeepsFor reports whether v is b itself (driver.Keeper): a wrapper that embeds a Backend
// and changes CompareAndSwap must offer CompareAndSwapKeeping and KeepsFor of its own, or
// the Store keeps history without them.
func (b *Backend) KeepsFor(v any) bool { return v == any(b) }

// keeping builds the keepScript call that swaps filePath from old to content and keeps old
// at keep; one is false when keep is in another group than the file, so another slot, and
// the call cannot be built (m then names the file only).
func (b *Backend) keeping(filePath, content, old, keep string) (m *mutation, one bool, err error) {
	p, err := toFilePath(filePath)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
	}
	kp, err := toFilePath(keep)
	if err == nil && kp == p {
		err = fmt.Errorf("redis backend: cannot keep %s at its own path: %w", p, fs.ErrInvalid)
	}
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
	}
	dir, name := vpath.Split(p)
	kdir, kname := vpath.Split(kp)
	g := groupOf(dir)
	m = &mutation{script: keepScript, verb: "write", path: p, group: g, conditional: true}
	if groupOf(kdir) != g {
		return m, false, nil
	}
	keys := make([]string, 0, 8)
	keys = append(keys, b.key(g, "f:", p), b.clockKey(g), b.memoKey(g, rand.Text()), b.key(g, "d:", dir),
		b.key(g, "f:", kp), b.key(g, "d:", kdir))
	keys = b.appendAncestors(keys, dir, g)
	a := len(keys) - 6
	m.keys = b.appendAncestors(keys, kdir, g)
	m.args = []any{content, old, b.publishCommand(), b.barrier(), p, b.channel(dir), name, kp, b.channel(kdir), kname, a}
	return m, true, nil
}

// appendAncestors appends the index keys of the folders above the clean folder dir up to
// and including its group folder g (none when dir is g).
func (b *Backend) appendAncestors(keys []string, dir, g string) []string {
	for d := dir; d != g; {
		d = parentDir(d)
		keys = append(keys, b.key(g, "d:", d))
	}
	return keys
}

// DeleteLazily deletes the files in one pipelined round trip (driver.LazyDeleter): one
// script call per folder, each atomic on its own, with no memo: a lazy delete is never
// resent as a conditional one is.
func (b *Backend) DeleteLazily(ctx context.Context, paths ...string) error {
	if b.replicas > 0 {
		for _, p := range paths {
			if err := b.Delete(ctx, &driver.DeleteRequest{FilePath: p}); err != nil {
				return err
			}
		}
		return nil
	}
	var ms []*mutation
	byDir := map[string]*mutation{}
	for _, fp := range paths {
		p, err := toFilePath(fp)
		if err != nil {
			return fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
		}
		dir := parentDir(p)
		m := byDir[dir]
		if m == nil {
			m = b.drop(p)
			byDir[dir] = m
			ms = append(ms, m)
		}
		m.keys = append(m.keys, b.contentKey(p))
		m.args = append(m.args, path.Base(p), p)
	}
	replies, errs := b.pipeline(ctx, ms)
	var first error
	for i, m := range ms {
		if _, err := b.finish(ctx, m, replies[i], errs[i]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// drop starts the dropScript call for the folder of the clean path p, with no file yet.
func (b *Backend) drop(p string) *mutation {
	idx, fields := b.chain(p)
	dir := parentDir(p)
	g := groupOf(dir)
	keys := append([]string{b.clockKey(g)}, idx...)
	args := []any{len(idx), b.publishCommand(), b.channel(dir)}
	for _, f := range fields[1:] {
		args = append(args, f)
	}
	return &mutation{script: dropScript, verb: "delete", path: dir, group: g, keys: keys, args: args}
}

// pipeline sends the calls in one round trip and returns each reply or error. A call that
// did not run there (a script not loaded on a restarted server, a slot moving in a Cluster)
// is run again on its own, the way every other call is (run).
func (b *Backend) pipeline(ctx context.Context, ms []*mutation) ([]int64, []error) {
	replies, errs := make([]int64, len(ms)), make([]error, len(ms))
	cmds := make([]*redis.Cmd, len(ms))
	_, _ = b.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, m := range ms {
			cmds[i] = m.script.EvalSha(ctx, p, m.keys, m.args...)
		}
		return nil
	})
	for i, m := range ms {
		replies[i], errs[i] = cmds[i].Int64()
		if errs[i] != nil && notRun(errs[i]) {
			replies[i], errs[i] = b.run(ctx, m)
		}
	}
	return replies, errs
}

// notRun reports a reply after which the script surely did not run, so it may be sent again.
func notRun(err error) bool {
	return redis.HasErrorPrefix(err, "NOSCRIPT") || isRedirect(err) ||
		redis.HasErrorPrefix(err, "CLUSTERDOWN") || redis.HasErrorPrefix(err, "TRYAGAIN")
}
