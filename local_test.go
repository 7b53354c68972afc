package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
)

// WriteOnce never writes through a link: a hard link at an entry's path to a file outside
// the root is replaced, and the outside file keeps its bytes.
func TestWriteOnceNeverWritesThroughAHardLink(t *testing.T) {
	ctx := context.Background()
	root, outside := t.TempDir(), filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, []byte("keep me"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans"), 0o755))
	require.NoError(t, os.Link(outside, filepath.Join(root, "plans", "e")))
	b := newLocal(t, root)
	require.NoError(t, b.WriteOnce(ctx, &driver.WriteRequest{FilePath: "/plans/e", Content: "entry"}))
	got, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(got))
	got, err = os.ReadFile(filepath.Join(root, "plans", "e"))
	require.NoError(t, err)
	assert.Equal(t, "entry", string(got))
}

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
