package einoext_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino-ext/adk/backend/local"
	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// backend is the adapter the README shows: eino-ext's local file system backend, which has
// no Delete, plus a Delete that removes the file and treats a missing one as done. Paths are
// host paths, so BaseDir must be an absolute folder.
type backend struct{ *local.Local }

func (b backend) Delete(_ context.Context, req *driver.DeleteRequest) error {
	if err := os.Remove(req.FilePath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// atomicBackend is backend with an atomic Write: the content goes to a temp file in the same
// folder, which is renamed over the target, so a reader sees the old file or the new one,
// never part of one (eino-ext's own Write truncates the file and then writes it).
type atomicBackend struct{ backend }

func (b atomicBackend) Write(_ context.Context, req *driver.WriteRequest) error {
	dir, base := filepath.Split(req.FilePath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.WriteString(req.Content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), req.FilePath)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// taskBackend is written against plantask's names only, as a backend made for Eino's
// plantask middleware is.
type taskBackend struct{ fs *filesystem.InMemoryBackend }

func (b taskBackend) LsInfo(ctx context.Context, req *plantask.LsInfoRequest) ([]plantask.FileInfo, error) {
	return b.fs.LsInfo(ctx, req)
}
func (b taskBackend) Read(ctx context.Context, req *plantask.ReadRequest) (*filesystem.FileContent, error) {
	return b.fs.Read(ctx, req)
}
func (b taskBackend) Write(ctx context.Context, req *plantask.WriteRequest) error {
	return b.fs.Write(ctx, req)
}
func (b taskBackend) Delete(context.Context, *plantask.DeleteRequest) error { return nil }

// Compile-time checks: eino-ext's backend is a Workspace as it is and a Backend with the
// adapter; a plantask backend is a plan Backend as it is, and so is every plantask.Backend.
var (
	_ driver.Workspace = (*local.Local)(nil)
	_ plan.Backend     = backend{}
	_ plan.Backend     = atomicBackend{}
	_ plantask.Backend = backend{}
	_ plan.Backend     = taskBackend{}
	_ plan.Backend     = plantask.Backend(nil)
)

func newLocal(t *testing.T) *local.Local {
	t.Helper()
	l, err := local.NewBackend(context.Background(), &local.Config{})
	require.NoError(t, err)
	return l
}
