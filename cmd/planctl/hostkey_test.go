package main

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// planctl -dir ROOT/plans and a program with plan.NewLocalBackend(ROOT) and the default
// BaseDir are one plans folder: each reads the approvals the other gives.
func TestPlanctlAndAHostOnTheParentFolderReadEachOthersApprovals(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "plans")
	backend, err := plan.NewLocalBackend(root)
	require.NoError(t, err)
	defer backend.Close()
	host, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	body := "# Ship\n\n- [ ] Build\n"
	p, err := host.Put(ctx, plan.Update{Name: "ship", Content: &body})
	require.NoError(t, err)
	_, err = host.Approve(ctx, "ship", p.Revision, "host")
	require.NoError(t, err)

	r := planctlOK(t, "-dir", dir, "show", "ship")
	assert.Contains(t, r.stdout, "approval: approved at r1 by host")

	planctlOK(t, "-dir", dir, "revoke", "ship")
	cur, err := host.Get(ctx, "ship")
	require.NoError(t, err)
	require.Nil(t, cur.Approval)
	planctlOK(t, "-dir", dir, "approve", "ship", "-rev", strconv.FormatInt(cur.Revision, 10), "-by", "alice")

	cur, err = host.Get(ctx, "ship")
	require.NoError(t, err)
	require.NotNil(t, cur.Approval, "the host reads planctl's approval")
	assert.Equal(t, "alice", cur.Approval.By)
	assert.FileExists(t, filepath.Join(root, ".plans.approval-key"))
	assert.NoFileExists(t, filepath.Join(dir, ".approval-key"), "planctl kept a key inside the plans folder")
}
