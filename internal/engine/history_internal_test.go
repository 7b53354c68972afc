package engine

import (
	"context"
	"testing"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An entry counts only when it is what its name says: its bytes match the checksum in its
// name and it decodes to that revision. Anything else is never shown, and the history ends
// at the first revision that has no such entry.
func TestHistoryShowsOnlyEntriesThatAreWhatTheirNameSays(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	s, err := NewStore(&StoreConfig{Backend: b, HistoryLimit: DefaultHistoryLimit})
	require.NoError(t, err)
	for _, st := range []string{"one", "two", "three", "four"} {
		_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo("- [ ] x\n"), Status: st})
		require.NoError(t, err)
	}
	_, raw2 := mustRevision(t, s, 2)
	// Junk under a well-formed name, and revision 2's file under revision 3's name.
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.entryPath("ship", 3, entrySum("junk")), Content: "junk"}))
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.entryPath("ship", 3, entrySum(raw2)), Content: raw2}))

	statuses := func() []string {
		h, err := s.History(ctx, "ship")
		require.NoError(t, err)
		var out []string
		for _, r := range h {
			out = append(out, r.Status)
		}
		return out
	}
	assert.Equal(t, []string{"four", "three", "two", "one"}, statuses(), "the real entries stay readable beside the bad ones")

	// Revision 2's entry cut short (a crash after an unsynced write): the history ends at 3,
	// and revision 1 is not shown across the gap.
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.entryPath("ship", 2, entrySum(raw2)), Content: raw2[:len(raw2)-2]}))
	assert.Equal(t, []string{"four", "three"}, statuses())
	for _, rev := range []int64{1, 2} {
		_, err = s.GetRevision(ctx, "ship", rev)
		assert.Equal(t, document.CodeNotFound, document.CodeOf(err), "revision %d", rev)
	}
}

// A plan file edited by hand at the same revision is what that revision was: the next
// change keeps the edited file, so history shows what people and agents really read.
func TestHistoryKeepsAHandEditedRevisionAsItWas(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	s, err := NewStore(&StoreConfig{Backend: b, HistoryLimit: DefaultHistoryLimit})
	require.NoError(t, err)
	for _, st := range []string{"one", "two"} {
		_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo("- [ ] x\n"), Status: st})
		require.NoError(t, err)
	}
	cur, _, err := s.load(ctx, "ship")
	require.NoError(t, err)
	cur.Content = "- [x] x\n"
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.planPath("ship"), Content: document.EncodePlan(cur)}))
	_, err = s.SetStatus(ctx, "ship", "three", nil)
	require.NoError(t, err)
	h, err := s.History(ctx, "ship")
	require.NoError(t, err)
	require.Len(t, h, 3)
	p, err := s.GetRevision(ctx, "ship", 2)
	require.NoError(t, err)
	assert.Equal(t, "- [x] x\n", p.Content, "revision 2 as the person left it")
	p, err = s.GetRevision(ctx, "ship", 1)
	require.NoError(t, err)
	assert.Equal(t, "one", p.Status)
}

func mustRevision(t *testing.T, s *Store, rev int64) (*document.Plan, string) {
	t.Helper()
	p, err := s.GetRevision(context.Background(), "ship", rev)
	require.NoError(t, err)
	return p, document.EncodePlan(p)
}
