package postgres

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"time"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/jackc/pgx/v5"

	"github.com/einoplan/plan/driver"
)

// LsInfo lists the files and folders directly inside req.Path, sorted by path, from one
// statement (one snapshot). Size is the byte length; ModifiedAt differs for every write of
// a file (see StrictModTimes). A missing folder, or a file's path, lists as empty.
func (b *Backend) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir := cleanPath(req.Path)
	if !validText(dir) {
		return []driver.FileInfo{}, nil
	}
	var out []driver.FileInfo
	err := b.idempotent(ctx, func() error {
		out = []driver.FileInfo{}
		rows, err := b.pool.Query(ctx, b.sql.list, dir, childPrefix(dir), childBound(dir))
		if err != nil {
			return err
		}
		var name string
		var size, mtime, version int64
		var isDir bool
		_, err = pgx.ForEachRow(rows, []any{&name, &size, &mtime, &version, &isDir}, func() error {
			fi := driver.FileInfo{Path: joinPath(dir, name), IsDir: isDir}
			if !isDir {
				fi.Size = size
				fi.ModifiedAt = modifiedAt(mtime, version)
			}
			out = append(out, fi)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, wrapErr("list", dir, err)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return !out[i].IsDir && out[j].IsDir // a file sorts before a folder of the same name
	})
	return out, nil
}

// modifiedAt formats a row's time (microseconds) with its version's last three digits as
// nanoseconds (see StrictModTimes).
func modifiedAt(mtime, version int64) string {
	return time.UnixMicro(mtime).Add(time.Duration(version % 1000)).UTC().Format(time.RFC3339Nano)
}

// Read returns the file, honouring Offset and Limit as 1-based line numbers like Eino's
// backends. A missing file is an error wrapping fs.ErrNotExist. Bytes come back exactly as
// written: NUL bytes and invalid UTF-8 included.
func (b *Backend) Read(ctx context.Context, req *driver.ReadRequest) (*filesystem.FileContent, error) {
	content, err := b.readRow(ctx, "read", req.FilePath, b.sql.read)
	if err != nil {
		return nil, err
	}
	return &filesystem.FileContent{Content: driver.LineWindow(content, req.Offset, req.Limit)}, nil
}

// ReadAtMost returns at most the first limit bytes of the file; the server sends no more.
// A missing file is an error wrapping fs.ErrNotExist.
func (b *Backend) ReadAtMost(ctx context.Context, filePath string, limit int64) (string, error) {
	return b.readRow(ctx, "read", filePath, b.sql.readAtMost, max(limit, 0))
}

// readRow runs one of the read statements on the file p, with extra parameters after
// dir and name.
func (b *Backend) readRow(ctx context.Context, verb, p, query string, extra ...any) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	dir, name, err := splitFile(p)
	if err != nil {
		return "", err
	}
	var content []byte
	args := append([]any{dir, name}, extra...)
	err = b.idempotent(ctx, func() error { return b.pool.QueryRow(ctx, query, args...).Scan(&content) })
	if errors.Is(err, pgx.ErrNoRows) {
		return "", wrapErr(verb, cleanPath(p), fs.ErrNotExist)
	}
	if err != nil {
		return "", wrapErr(verb, cleanPath(p), err)
	}
	return string(content), nil
}

// Write replaces the whole file, creating it (and so its folders) as needed, in one
// statement: a reader sees the old bytes or the new ones.
func (b *Backend) Write(ctx context.Context, req *driver.WriteRequest) error {
	_, err := b.mutate(ctx, "write", req.FilePath, b.sql.write, []byte(req.Content))
	return err
}

// WriteOnce writes a file that is written once and never rewritten (a history entry, where
// the Store does not keep it with CompareAndSwapKeeping) like Write, but without waiting
// for the commit to reach disk (synchronous_commit off for that one statement): a server
// crash right after may lose the file, never tear it.
func (b *Backend) WriteOnce(ctx context.Context, req *driver.WriteRequest) error {
	_, err := b.mutate(ctx, "write", req.FilePath, b.sql.writeOnce, []byte(req.Content))
	return err
}

// Delete removes the file; a missing file is not an error. A folder is gone with its last
// file. A delete is as durable as a write, except for a file written once (by WriteOnce, or
// kept by CompareAndSwapKeeping: a history entry, which its Store prunes as it goes): that
// delete does not wait for the disk either, so after a server crash the file may be back,
// as it was written.
func (b *Backend) Delete(ctx context.Context, req *driver.DeleteRequest) error {
	_, err := b.mutate(ctx, "delete", req.FilePath, b.sql.remove, nil)
	return err
}

// CompareAndSwap writes req.Content only if the stored bytes equal *old (compared by their
// SHA-256, which the server computes and keeps with the row), or, when old is nil, only if the file does not exist. The
// comparison and the write are one statement, so of any number of callers expecting the
// same bytes exactly one succeeds, however long any of them paused. (false, nil) means the
// precondition failed and nothing was written. An error wraps driver.ErrNotWritten only when
// nothing was written for sure (the statement never left, or the server refused it);
// otherwise (a connection lost after sending) the outcome is open and the Store resolves it.
func (b *Backend) CompareAndSwap(ctx context.Context, req *driver.WriteRequest, old *string) (bool, error) {
	content := []byte(req.Content)
	if old == nil {
		return b.mutate(ctx, "write", req.FilePath, b.sql.create, content)
	}
	want := sha256.Sum256([]byte(*old))
	return b.mutate(ctx, "write", req.FilePath, b.sql.swap, content, want[:])
}

// CompareAndSwapKeeping does what CompareAndSwap does and, when it replaces a file (old not
// nil), also writes keep holding the bytes it replaced (driver.KeepingSwapper), in the same
// statement, so one round trip: the conditional UPDATE of the file and, only when it
// updated, the INSERT of keep with the replaced bytes, copied inside the server (they do not
// travel again). Both rows commit together, each with its change notification, or neither
// does; a refused comparison writes nothing. keep is a once-written file, as WriteOnce
// writes it: its later removal does not wait for the disk. The commit waits for the disk as
// CompareAndSwap's does, since it carries the file's new bytes. With old nil it is
// CompareAndSwap: a create replaces nothing, so it keeps nothing. Errors are as for
// CompareAndSwap; keep must name a file other than req.FilePath.
func (b *Backend) CompareAndSwapKeeping(ctx context.Context, req *driver.WriteRequest, old *string, keep string) (bool, error) {
	if old == nil {
		return b.CompareAndSwap(ctx, req, nil)
	}
	kdir, kname, err := splitFile(keep)
	if err != nil {
		return false, err
	}
	if cleanPath(keep) == cleanPath(req.FilePath) {
		return false, fmt.Errorf("postgres backend: keep %s names the file it would keep: %w (%w)", keep, fs.ErrInvalid, driver.ErrNotWritten)
	}
	want := sha256.Sum256([]byte(*old))
	return b.mutate(ctx, "write", req.FilePath, b.sql.swapKeeping, []byte(req.Content), want[:], kdir, kname)
}

// KeepsFor reports whether v is b itself (driver.Keeper): a wrapper that embeds a Backend
// and changes CompareAndSwap must offer CompareAndSwapKeeping and KeepsFor of its own, or
// the Store keeps history without them.
func (b *Backend) KeepsFor(v any) bool { return v == any(b) }

// CompareAndDelete deletes the file only if its stored bytes equal old, checked and done in
// one statement. (false, nil) means the file changed or is gone; errors are as for
// CompareAndSwap.
func (b *Backend) CompareAndDelete(ctx context.Context, req *driver.DeleteRequest, old string) (bool, error) {
	want := sha256.Sum256([]byte(old))
	return b.mutate(ctx, "delete", req.FilePath, b.sql.compareDelete, nil, want[:])
}

// mutate runs one mutating statement on filePath and reports whether it changed a row.
// content is $3 for a write; expect follows (the expected hash, then any further
// parameters).
func (b *Backend) mutate(ctx context.Context, verb, filePath, query string, content []byte, expect ...any) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("%w: %w", driver.ErrNotWritten, err)
	}
	dir, name, err := splitFile(filePath)
	if err != nil {
		return false, err
	}
	args := []any{dir, name}
	if verb == "write" {
		if content == nil {
			content = []byte{}
		}
		args = append(args, content)
	}
	args = append(args, expect...)
	tag, err := b.pool.Exec(ctx, query, args...)
	if err != nil {
		return false, wrapErr(verb, cleanPath(filePath), classify(err))
	}
	return tag.RowsAffected() > 0, nil
}
