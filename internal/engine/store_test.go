package engine

import (
	"testing"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/localfs"
	"github.com/stretchr/testify/require"
)

// newLocal is a local disk backend on root, closed when t ends.
func newLocal(t testing.TB, root string) *localfs.Backend {
	t.Helper()
	b, err := localfs.New(root)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

// storeOn is a Store on b with plans in dir ("" for the default).
func storeOn(t testing.TB, b driver.Backend, dir string) *Store {
	t.Helper()
	s, err := NewStore(&StoreConfig{Backend: b, BaseDir: dir})
	require.NoError(t, err)
	return s
}
