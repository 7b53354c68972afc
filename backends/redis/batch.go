package redisbackend

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
)

// CompareAndSwapWithEntry writes entry and then compares and swaps req (driver.EntrySwapper),
// both in one pipelined round trip: two script calls, each atomic on its own. The entry
// lands even when the swap does not; the Store then deletes it, and shows an entry only
// when its plan file landed. With WithReplicaAcks, each call waits for its replicas, one after
// the other.
func (b *Backend) CompareAndSwapWithEntry(ctx context.Context, req *plan.WriteRequest, old *string, entry *plan.WriteRequest) (bool, error) {
	if b.replicas > 0 {
		if err := b.Write(ctx, entry); err != nil {
			return false, err
		}
		return b.CompareAndSwap(ctx, req, old)
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
	}
	e, err := b.mutation(writeScript, "write", entry.FilePath, "w", entry.Content, "")
	if err != nil {
		return false, err
	}
	mode, was := "n", ""
	if old != nil {
		mode, was = "c", *old
	}
	m, err := b.mutation(writeScript, "write", req.FilePath, mode, req.Content, was)
	if err != nil {
		return false, err
	}
	replies, errs := b.pipeline(ctx, []*mutation{e, m})
	if _, err := b.finish(ctx, e, replies[0], errs[0]); err != nil {
		if errs[1] == nil && replies[1]&resultApplied != 0 {
			// The entry failed but the plan landed: what it shows lacks one entry, as
			// after a crash, and is still true.
			return b.finish(ctx, m, replies[1], nil)
		}
		return false, err
	}
	return b.finish(ctx, m, replies[1], errs[1])
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
