package engine

import (
	"testing"

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
