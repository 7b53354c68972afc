package backendtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
)

// testRolledBack: the plan's mark, kept beside the approval key through the Backend, shows an
// approved plan file put back after a revoke as rolled_back, a fresh Store too; deleting it
// is the way out, and the plan written again goes on past every revision it reached.
func testRolledBack(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s, p := storeHolding(t, b, dir, "r", "- [ ] deploy (uses deploy_prod)\n")
	_, err := s.Approve(ctx, "r", p.Revision, "ana")
	require.NoError(t, err)
	file := dir + "/r.md"
	old, err := readWhole(ctx, b, file)
	require.NoError(t, err)
	revoked, err := s.Revoke(ctx, "r")
	require.NoError(t, err)

	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: file, Content: old}))
	_, err = s.Get(ctx, "r")
	requireCode(t, plan.CodeRolledBack, err)
	_, err = newStore(t, b, dir).Get(ctx, "r")
	requireCode(t, plan.CodeRolledBack, err)

	_, err = s.Delete(ctx, "r", nil)
	require.NoError(t, err)
	again, err := s.Put(ctx, plan.Update{Name: "r", Content: ptr("- [ ] b\n")})
	require.NoError(t, err)
	require.Greater(t, again.Revision, revoked.Revision, "revisions never repeat for a name")
}
