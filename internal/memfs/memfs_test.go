package memfs_test

import (
	"context"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver/drivertest"
	"github.com/einoplan/plan/internal/memfs"
)

// MemoryBackend passes the conformance suite every backend must pass.
func TestConformance(t *testing.T) {
	drivertest.RunBackendSuite(t, func(t *testing.T) plan.Backend { return memfs.New() })
}

// Restore puts back every file of a snapshot and drops files written since.
func TestRestoreReturnsToTheSnapshot(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	require.NoError(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: "/d/a.md", Content: "a"}))
	snap := b.Snapshot()
	require.NoError(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: "/d/a.md", Content: "changed"}))
	require.NoError(t, b.Write(ctx, &filesystem.WriteRequest{FilePath: "/e/b.md", Content: "b"}))
	b.Restore(snap)
	got, err := b.Read(ctx, &filesystem.ReadRequest{FilePath: "/d/a.md"})
	require.NoError(t, err)
	assert.Equal(t, "a", got.Content)
	entries, err := b.LsInfo(ctx, &filesystem.LsInfoRequest{Path: "/"})
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the snapshot's folder is left")
}
