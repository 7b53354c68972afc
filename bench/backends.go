package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk/middlewares/plantask"

	"github.com/einoplan/plan"
)

// taskBackend adapts a plan.Backend to plantask.Backend. The two interfaces have the same
// methods, but each package declares its own DeleteRequest type.
type taskBackend struct{ plan.Backend }

func (b taskBackend) Delete(ctx context.Context, req *plantask.DeleteRequest) error {
	return b.Backend.Delete(ctx, &driver.DeleteRequest{FilePath: req.FilePath})
}

// opened is one fresh, empty backend.
type opened struct {
	backend plan.Backend
	// seed writes a file for test setup. On disk it skips the backend's fsyncs, which
	// would otherwise dominate setting up 10,000 entries; the bytes are the same.
	seed  func(path, content string) error
	close func()
}

// backendKind is a Backend implementation the operation benchmarks run on.
type backendKind struct {
	name string
	open func() (*opened, error)
	// racy is true when the Store caches a list summary only once the file is older than
	// its racy window (2 s), as on a local file system.
	racy bool
}

func memoryKind() backendKind {
	return backendKind{name: "MemoryBackend", open: func() (*opened, error) {
		b := plan.NewMemoryBackend()
		return &opened{backend: b, close: func() {},
			seed: func(p, content string) error {
				return b.Write(context.Background(), &driver.WriteRequest{FilePath: p, Content: content})
			}}, nil
	}}
}

// racyWait is how long after its last write a file on disk must wait before the Store
// caches its summary: the Store's 2 s racy window plus a margin.
const racyWait = 2100 * time.Millisecond

// allKinds returns the backend kinds the operation benchmarks run on.
func allKinds() []backendKind {
	return []backendKind{memoryKind(), localKind()}
}

// localKind is plan.LocalBackend on a fresh folder under the system's temp folder.
func localKind() backendKind {
	return backendKind{name: "LocalBackend", racy: true, open: func() (*opened, error) {
		dir, err := os.MkdirTemp("", "plan-bench-")
		if err != nil {
			return nil, err
		}
		b, err := plan.NewLocalBackend(dir)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		return &opened{
			backend: b,
			close: func() {
				b.Close()
				os.RemoveAll(dir)
			},
			seed: func(p, content string) error {
				full := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "/")))
				if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
					return err
				}
				return os.WriteFile(full, []byte(content), 0o600)
			},
		}, nil
	}}
}
