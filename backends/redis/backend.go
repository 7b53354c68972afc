// Package redisbackend stores plans in Redis, so agents on many machines share one plan
// store. A Backend implements plan.Backend, plan.Swapper and plan.LimitedReader: the Store
// discovers the Swapper and makes every guarded write a compare-and-swap run inside Redis,
// atomic across processes and machines with no lock or lease that could expire.
//
// Durability is whatever the Redis server is configured for (RDB snapshots, AOF fsync
// policy, replication); the Backend adds no copy of its own.
package redisbackend

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
)

// DefaultPrefix is the key prefix used when no WithPrefix option is given.
const DefaultPrefix = "plan:"

// Backend keeps files as Redis keys under one prefix, with one index hash per folder. Every
// mutation is a single Lua script, so a file, its folder indexes and its ModifiedAt change
// together or not at all, and a failed call (a dropped connection, a stopped server) leaves
// nothing half-written. It is safe for concurrent use by any number of goroutines,
// processes and machines sharing the same Redis and prefix.
type Backend struct {
	client redis.UniversalClient
	prefix string
}

var (
	_ plan.Backend       = (*Backend)(nil)
	_ plan.Swapper       = (*Backend)(nil)
	_ plan.LimitedReader = (*Backend)(nil)
)

// Option configures a Backend.
type Option func(*Backend)

// WithPrefix sets the prefix of every key the Backend reads or writes; the Backend owns all
// keys under it. On Redis Cluster give the prefix a hash tag, such as "{plan}:", because each
// script touches a file, its folder indexes and a shared clock in one slot.
func WithPrefix(p string) Option {
	return func(b *Backend) { b.prefix = p }
}

// New returns a Backend on client. The client's own settings decide timeouts and retries;
// set ContextTimeoutEnabled on it so a context deadline also cuts a call already in flight.
func New(client redis.UniversalClient, opts ...Option) *Backend {
	b := &Backend{client: client, prefix: DefaultPrefix}
	for _, o := range opts {
		o(b)
	}
	return b
}

// LsInfo lists the files and folders directly inside req.Path, sorted by path, from one
// atomic read of the folder's index. A file's ModifiedAt changes on every write to it, so
// Size and ModifiedAt together identify one version. A missing folder lists as empty.
func (b *Backend) LsInfo(ctx context.Context, req *plan.LsInfoRequest) ([]plan.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := cleanPath(req.Path)
	entries, err := b.client.HGetAll(ctx, b.dirKey(dir)).Result()
	if err != nil {
		return nil, fmt.Errorf("redis backend: list %s: %w", dir, err)
	}
	out := make([]plan.FileInfo, 0, len(entries))
	for name, meta := range entries {
		if sub, ok := strings.CutSuffix(name, "/"); ok {
			out = append(out, plan.FileInfo{Path: joinPath(dir, sub), IsDir: true})
			continue
		}
		fi := plan.FileInfo{Path: joinPath(dir, name)}
		if size, mtime, ok := parseMeta(meta); ok {
			fi.Size = size
			fi.ModifiedAt = time.UnixMicro(mtime).UTC().Format(time.RFC3339Nano)
		}
		out = append(out, fi)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return !out[i].IsDir && out[j].IsDir // a file sorts before a folder of the same name
	})
	return out, nil
}

// StrictModTimes reports that every write gives a file a ModifiedAt no earlier write under
// the prefix had: each script takes the later of Redis TIME and one past the last value
// handed out, so even a server clock stepping back never repeats one. The Store may
// therefore cache a summary the moment it reads it.
func (b *Backend) StrictModTimes() bool { return true }

// parseMeta decodes an index value "<size> <mtime in microseconds>".
func parseMeta(meta string) (size, mtime int64, ok bool) {
	s, m, found := strings.Cut(meta, " ")
	if !found {
		return 0, 0, false
	}
	size, err1 := strconv.ParseInt(s, 10, 64)
	mtime, err2 := strconv.ParseInt(m, 10, 64)
	return size, mtime, err1 == nil && err2 == nil
}

// Read returns the file, honouring Offset and Limit as 1-based line numbers like Eino's
// backends. A missing file is an error wrapping fs.ErrNotExist.
func (b *Backend) Read(ctx context.Context, req *plan.ReadRequest) (*filesystem.FileContent, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := toFilePath(req.FilePath)
	if err != nil {
		return nil, err
	}
	content, err := b.client.Get(ctx, b.contentKey(p)).Result()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("redis backend: read %s: %w", p, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("redis backend: read %s: %w", p, err)
	}
	return &filesystem.FileContent{Content: sliceLines(content, req.Offset, req.Limit)}, nil
}

// ReadAtMost returns at most the first max bytes of the file; Redis sends no more than that.
// A missing file is an error wrapping fs.ErrNotExist.
func (b *Backend) ReadAtMost(ctx context.Context, filePath string, max int64) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p, err := toFilePath(filePath)
	if err != nil {
		return "", err
	}
	content, err := readPrefixScript.Run(ctx, b.client, []string{b.contentKey(p)}, max-1).Text()
	if errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("redis backend: read %s: %w", p, fs.ErrNotExist)
	}
	if err != nil {
		return "", fmt.Errorf("redis backend: read %s: %w", p, err)
	}
	return content, nil
}

// Write replaces the whole file, creating its folders as needed.
func (b *Backend) Write(ctx context.Context, req *plan.WriteRequest) error {
	_, err := b.write(ctx, req.FilePath, "w", req.Content, "")
	return err
}

// CompareAndSwap writes req.Content only if the stored bytes equal *old, or, when old is nil,
// only if the file does not exist. The comparison runs inside Redis in the same script as
// the write, so of any number of callers expecting the same bytes exactly one succeeds, no
// matter how long any of them paused in between. (false, nil) means the precondition failed.
func (b *Backend) CompareAndSwap(ctx context.Context, req *plan.WriteRequest, old *string) (bool, error) {
	if old == nil {
		return b.write(ctx, req.FilePath, "n", req.Content, "")
	}
	return b.write(ctx, req.FilePath, "c", req.Content, *old)
}

// CompareAndDelete deletes the file only if its stored bytes equal old, checked and done in
// one script. (false, nil) means the file changed or is gone.
func (b *Backend) CompareAndDelete(ctx context.Context, req *plan.DeleteRequest, old string) (bool, error) {
	return b.remove(ctx, req.FilePath, "c", old)
}

// Delete removes the file, and any folder it leaves empty; a missing file is not an error.
func (b *Backend) Delete(ctx context.Context, req *plan.DeleteRequest) error {
	_, err := b.remove(ctx, req.FilePath, "d", "")
	return err
}

func (b *Backend) write(ctx context.Context, filePath, mode, content, old string) (bool, error) {
	return b.mutate(ctx, writeScript, "write", filePath, mode, content, old)
}

func (b *Backend) remove(ctx context.Context, filePath, mode, old string) (bool, error) {
	return b.mutate(ctx, deleteScript, "delete", filePath, mode, old)
}

// mutate runs one mutation script on filePath: its keys are the file, the clock, the retry
// memo and the folder indexes up to the root; its arguments are args, a fresh token, then
// the index fields. It reports whether the script changed anything.
func (b *Backend) mutate(ctx context.Context, script *redis.Script, verb, filePath string, args ...any) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	p, err := toFilePath(filePath)
	if err != nil {
		return false, err
	}
	idx, fields := b.chain(p)
	keys := append([]string{b.contentKey(p), b.clockKey(), b.memoKey(p)}, idx...)
	args = append(args, rand.Text())
	for _, f := range fields {
		args = append(args, f)
	}
	n, err := script.Run(ctx, b.client, keys, args...).Int()
	if err != nil {
		return false, fmt.Errorf("redis backend: %s %s: %w", verb, p, err)
	}
	return n == 1, nil
}

// sliceLines applies Eino's 1-based line Offset and line Limit; zero values mean everything.
func sliceLines(content string, offset, limit int) string {
	if offset <= 1 && limit <= 0 {
		return content
	}
	lines := strings.SplitAfter(content, "\n")
	start := max(offset-1, 0)
	if start >= len(lines) {
		return ""
	}
	end := len(lines)
	if limit > 0 && start+limit < end {
		end = start + limit
	}
	return strings.Join(lines[start:end], "")
}
