package engine

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/localfs"
	"github.com/stretchr/testify/require"
)

// newLocal is a local disk backend on root, closed when t ends.
func newLocal(t testing.TB, root string, opts ...localfs.Option) *localfs.Backend {
	t.Helper()
	b, err := localfs.New(root, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

// makePlansFolder makes the plans folder of a LocalBackend on root and returns its path.
func makePlansFolder(t testing.TB, root string) string {
	t.Helper()
	dir := filepath.Join(root, "plans")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	return dir
}

// mustStore is a Store made with cfg.
func mustStore(t testing.TB, cfg StoreConfig) *Store {
	t.Helper()
	s, err := NewStore(&cfg)
	require.NoError(t, err)
	return s
}

// storeOn is a Store on b with plans in dir ("" for the default).
func storeOn(t testing.TB, b driver.Backend, dir string) *Store {
	t.Helper()
	return mustStore(t, StoreConfig{Backend: b, BaseDir: dir})
}

// shipOn is a Store on b, in no base folder, that has written body as the plan ship.
func shipOn(t testing.TB, b driver.Backend, body string) *Store {
	t.Helper()
	s := storeOn(t, b, "")
	_, err := s.Put(context.Background(), Update{Name: "ship", Content: &body})
	require.NoError(t, err)
	return s
}

// inParallel runs work(0) to work(n-1) at once and returns the errors they end with.
func inParallel(n int, work func(i int) error) []error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := work(i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	var out []error
	for err := range errs {
		out = append(out, err)
	}
	return out
}

// putApproved writes plan name with body through s and approves the revision written as
// ana, returning the approved plan.
func putApproved(t testing.TB, ctx context.Context, s *Store, name, body string) *document.Plan {
	t.Helper()
	p, err := s.Put(ctx, Update{Name: name, Content: &body})
	require.NoError(t, err)
	p, err = s.Approve(ctx, name, p.Revision, "ana")
	require.NoError(t, err)
	return p
}
