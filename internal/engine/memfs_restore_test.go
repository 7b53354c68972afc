package engine

import (
	"context"
	"testing"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Revisions never repeat across MemoryBackend.Restore: a plan taken back to an older body
// comes back at a revision past every one its name reached, a plan the restore removes is
// created again past its last revision, and a writer holding a revision of the lost body is
// refused. A plan the restore leaves as it was keeps its revision and its approval.
func TestRevisionsNeverRepeatAcrossARestore(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	s := storeOn(t, b, "")
	put := func(name, body string, ifRev *int64) *document.Plan {
		t.Helper()
		p, err := s.Put(ctx, Update{Name: name, Content: &body, IfRevision: ifRev})
		require.NoError(t, err)
		return p
	}
	put("ship", "- [ ] snapshot body\n", nil)
	put("again", "- [ ] first life\n", nil)
	kept := put("kept", "- [ ] untouched\n", nil)
	_, err := s.Approve(ctx, "kept", kept.Revision, "ana")
	require.NoError(t, err)
	snap := b.Snapshot()

	put("ship", "- [ ] lost body\n", nil)
	lost := put("ship", "- [ ] lost body, later\n", nil) // revision 3
	put("gone", "- [ ] made after the snapshot\n", nil)
	put("gone", "- [ ] made after the snapshot, twice\n", nil) // revision 2
	_, err = s.Delete(ctx, "again", nil)
	require.NoError(t, err)
	put("again", "- [ ] second life\n", nil)
	put("again", "- [ ] second life, on\n", nil) // revision 3

	b.Restore(snap)
	for _, st := range []*Store{s, storeOn(t, b, "")} {
		ship, err := st.Get(ctx, "ship")
		require.NoError(t, err)
		assert.Equal(t, "- [ ] snapshot body\n", ship.Content)
		assert.Greater(t, ship.Revision, lost.Revision, "the restored body is a revision of its own")
		again, err := st.Get(ctx, "again")
		require.NoError(t, err)
		assert.Greater(t, again.Revision, int64(3))
		k, err := st.Get(ctx, "kept")
		require.NoError(t, err)
		assert.Equal(t, kept.Revision+1, k.Revision, "an unchanged plan keeps its revision")
		assert.NotNil(t, k.Approval, "and its approval")
		_, err = st.Get(ctx, "gone")
		assert.Equal(t, document.CodeNotFound, document.CodeOf(err))
	}

	_, err = s.Put(ctx, Update{Name: "ship", Content: ptrTo("- [ ] stale\n"), IfRevision: &lost.Revision})
	assert.Equal(t, document.CodeRevisionConflict, document.CodeOf(err), "a revision of the lost body guards nothing")
	next := put("ship", "- [ ] after the restore\n", nil)
	assert.Greater(t, next.Revision, lost.Revision+1)
	gone := put("gone", "- [ ] made again\n", nil)
	assert.Greater(t, gone.Revision, int64(2), "a removed plan is created again past its last revision")
}
