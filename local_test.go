package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
)

func newLocal(t testing.TB, root string) *plan.LocalBackend {
	t.Helper()
	b, err := plan.NewLocalBackend(root)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

// LocalBackend passes the Backend conformance suite.
func TestLocalBackendConformance(t *testing.T) {
	backendtest.RunBackendSuite(t, func(t *testing.T) plan.Backend { return newLocal(t, t.TempDir()) })
}
