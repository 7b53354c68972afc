package redisbackend

import (
	"context"
	"fmt"

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
	mode, was := "n", ""
	if old != nil {
		mode, was = "c", *old
	}
	m, err := b.mutation(writePairScript, "write", req.FilePath, mode, req.Content, was)
	if err != nil {
		return false, err
	}
	e, err := b.mutation(writeScript, "write", entry.FilePath, "w", entry.Content, "")
	if err != nil {
		return false, err
	}
	if e.group != m.group || b.replicas > 0 { // another Cluster slot, or WAIT per call: two calls
		if err := b.Write(ctx, entry); err != nil {
			return false, err
		}
		return b.CompareAndSwap(ctx, req, old)
	}
	keys := append(append(make([]string, 0, len(m.keys)+len(e.keys)), m.keys...), e.keys...)
	args := append(append(append(make([]any, 0, 2+len(m.args)+len(e.args)), len(m.keys), len(m.args)), m.args...), e.args...)
	n, err := b.run(ctx, writePairScript, keys, args)
	if err != nil {
		return b.finish(ctx, m, 0, err)
	}
	if n>>2 != 0 {
		b.finish(ctx, e, n>>2, nil)
	}
	return b.finish(ctx, m, n&3, nil)
}

// DeleteLazily deletes the files in one pipelined round trip (driver.LazyDeleter): each
// delete is atomic on its own.
func (b *Backend) DeleteLazily(ctx context.Context, paths ...string) error {
	if b.replicas > 0 {
		for _, p := range paths {
			if err := b.Delete(ctx, &plan.DeleteRequest{FilePath: p}); err != nil {
				return err
			}
		}
		return nil
	}
	ms := make([]*mutation, 0, len(paths))
	for _, p := range paths {
		m, err := b.mutation(deleteScript, "delete", p, "d", "", "")
		if err != nil {
			return err
		}
		ms = append(ms, m)
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
