package plan_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
)

// A watcher misses nothing that history keeps: with four workers moving steps of one plan
// on a LocalBackend (polled), every revision arrives once, in order, as a step move by the
// worker who made it, with no resync.
func TestWatchDeliversEveryKeptRevisionInOrder(t *testing.T) {
	backend, err := plan.NewLocalBackend(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	backendtest.WatchEveryRevision(t, backend)
}
