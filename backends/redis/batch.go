package redisbackend

import (
	"context"
	"fmt"
	"path"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
)

// CompareAndSwapWithEntry compares and swaps req and, when that wrote, writes entry
// (driver.EntrySwapper): one script call, so one round trip, and an entry only beside a
// plan file that landed. With WithReplicaAcks the entry and the swap are two calls, each
// waiting for its replicas.
func (b *Backend) CompareAndSwapWithEntry(ctx context.Context, req *plan.WriteRequest, old *string, entry *plan.WriteRequest) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
	}
	m, one, err := b.pair(req, old, entry)
	if err != nil {
		return false, err
	}
	if !one { // another Cluster slot, or WAIT per call: two calls
		if err := b.Write(ctx, entry); err != nil {
			return false, err
		}
		return b.CompareAndSwap(ctx, req, old)
	}
	n, err := b.run(ctx, m.script, m.keys, m.args)
	if err != nil {
		return b.finish(ctx, m, 0, err)
	}
	return b.finish(ctx, m, n&3, nil)
}

// pair builds the writePairScript call of CompareAndSwapWithEntry; one is false when the
// entry and the plan file must go in two calls.
func (b *Backend) pair(req *plan.WriteRequest, old *string, entry *plan.WriteRequest) (m *mutation, one bool, err error) {
	mode, was := "n", ""
	if old != nil {
		mode, was = "c", *old
	}
	m, err = b.mutation(writePairScript, "write", req.FilePath, mode, req.Content, was, memoToken(mode))
	if err != nil {
		return nil, false, err
	}
	ep, err := toFilePath(entry.FilePath)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
	}
	edir := parentDir(ep)
	if groupOf(edir) != m.group || b.replicas > 0 {
		return m, false, nil
	}
	idx, fields := b.chain(ep)
	keys := make([]string, 0, len(m.keys)+1+len(idx))
	keys = append(append(append(keys, m.keys...), b.contentKey(ep)), idx...)
	args := make([]any, 0, 2+len(m.args)+4+len(fields))
	args = append(append(args, len(m.keys), len(m.args)), m.args...)
	args = append(args, entry.Content, b.publishCommand(), b.channel(edir), ep)
	for _, f := range fields {
		args = append(args, f)
	}
	m.keys, m.args = keys, args
	return m, true, nil
}

// DeleteLazily deletes the files in one pipelined round trip (driver.LazyDeleter): one
// script call per folder, each atomic on its own, with no memo: a lazy delete is never
// resent as a conditional one is.
func (b *Backend) DeleteLazily(ctx context.Context, paths ...string) error {
	if b.replicas > 0 {
		for _, p := range paths {
			if err := b.Delete(ctx, &plan.DeleteRequest{FilePath: p}); err != nil {
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
			replies[i], errs[i] = b.run(ctx, m.script, m.keys, m.args)
		}
	}
	return replies, errs
}

// notRun reports a reply after which the script surely did not run, so it may be sent again.
func notRun(err error) bool {
	return redis.HasErrorPrefix(err, "NOSCRIPT") || isRedirect(err) ||
		redis.HasErrorPrefix(err, "CLUSTERDOWN") || redis.HasErrorPrefix(err, "TRYAGAIN")
}
