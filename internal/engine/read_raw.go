package engine

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
)

// fileReader is what a bounded read needs: a Backend or a Workspace.
type fileReader interface {
	Read(ctx context.Context, req *driver.ReadRequest) (*driver.FileContent, error)
}

// ReadBounded reads the whole file p, but never more than limit+1 bytes when r is a
// driver.LimitedReader, and asks any other reader for every line explicitly (Limit 0 means "the
// first 2,000 lines" to some backends). A result over limit bytes means the file is too
// large. Errors are the reader's own.
func ReadBounded(ctx context.Context, r fileReader, p string, limit int64) (string, error) {
	if lr, ok := r.(driver.LimitedReader); ok {
		return lr.ReadAtMost(ctx, p, limit+1)
	}
	fc, err := r.Read(ctx, &driver.ReadRequest{FilePath: p, Offset: 1, Limit: wholeFileLines(limit)})
	if err != nil || fc == nil {
		return "", err
	}
	return fc.Content, nil
}

// wholeFileLines is a line Limit no file of at most limit bytes can reach, even one made of
// newlines only.
func wholeFileLines(limit int64) int {
	return int(min(limit, 1<<40)) + 2
}

// readRaw reads a file bounded to the largest size a plan can have. exists is false only
// when the Backend says the file does not exist.
func (s *Store) readRaw(ctx context.Context, p string) (raw string, exists bool, err error) {
	limit := int64(s.maxContent + headerAllowance)
	if s.limited != nil {
		raw, err = s.limited.ReadAtMost(ctx, p, limit+1)
	} else {
		raw, err = ReadBounded(ctx, s.Backend, p, limit)
	}
	switch {
	case err == nil:
	case IsNotExist(err):
		return "", false, nil
	case ctx.Err() != nil:
		return "", false, Canceled(ctx)
	case errors.Is(err, driver.ErrNotRegularFile):
		e := document.Fail(document.Error{Code: document.CodeCorrupt, Reason: document.ReasonNotPlanFile, Path: p})
		e.Err = err
		return "", true, e
	default:
		return "", false, BackendError("read "+p, err)
	}
	if int64(len(raw)) > limit {
		return "", true, document.Fail(document.Error{Code: document.CodeTooLarge, Reason: document.ReasonStoredTooLarge, Path: p, Limit: limit})
	}
	return raw, true, nil
}

// IsNotExist reports whether err means "no such file", for backends that wrap fs.ErrNotExist
// and for those (such as Eino's InMemoryBackend) that only say so in the message.
func IsNotExist(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "not found") || strings.Contains(msg, "no such file") ||
		strings.Contains(msg, "not exist")
}
