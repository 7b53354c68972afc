package plan

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Entries left by writes that lost (or never landed) are never shown, and do not hide the
// revisions around them: parents are truthful even in a losing entry.
func TestHistoryIgnoresEntriesThatNeverBecameThePlan(t *testing.T) {
	ctx := context.Background()
	b := NewMemoryBackend()
	s, err := NewStore(&StoreConfig{Backend: b, HistoryLimit: DefaultHistoryLimit})
	require.NoError(t, err)
	for _, st := range []string{"one", "two", "three"} {
		_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo("- [ ] x\n"), Status: st})
		require.NoError(t, err)
	}
	_, raw2 := mustRevision(t, s, 2)
	cur, raw3, err := s.load(ctx, "ship")
	require.NoError(t, err)

	// A loser of revision 3 (based on revision 2's file), and one of revision 4 (based on 3).
	lose := func(rev int64, parentRaw, status string) {
		p := *cur
		p.Revision, p.Status = rev, status
		file := EncodePlan(&p)
		e := encodeEntry(file, ActionStatus, "loser", fileHash(parentRaw))
		require.NoError(t, b.Write(ctx, &WriteRequest{FilePath: s.historyDir("ship") + "/" + entryName(rev, fileHash(file)), Content: e}))
	}
	lose(3, raw2, "lost-3")
	lose(4, raw3, "lost-4")
	// An entry that is not even an entry.
	require.NoError(t, b.Write(ctx, &WriteRequest{FilePath: s.historyDir("ship") + "/2-000000000000", Content: "junk"}))

	h, err := s.History(ctx, "ship")
	require.NoError(t, err)
	var statuses []string
	for _, r := range h {
		statuses = append(statuses, r.Status)
	}
	assert.Equal(t, []string{"three", "two", "one"}, statuses)
	for rev, want := range map[int64]string{1: "one", 2: "two", 3: "three"} {
		p, err := s.GetRevision(ctx, "ship", rev)
		require.NoError(t, err)
		assert.Equal(t, want, p.Status)
	}
	_, err = s.GetRevision(ctx, "ship", 4)
	assert.Equal(t, CodeNotFound, CodeOf(err))

	// Later writes build on the real revision 4; the loser's entry of 4 is never shown.
	for _, st := range []string{"four", "five", "six", "seven", "eight"} {
		_, err = s.SetStatus(ctx, "ship", st, nil)
		require.NoError(t, err)
	}
	four, err := s.GetRevision(ctx, "ship", 4)
	require.NoError(t, err)
	assert.Equal(t, "four", four.Status)
	p, err := s.GetRevision(ctx, "ship", 3)
	require.NoError(t, err)
	assert.Equal(t, "three", p.Status)
	d, err := s.Diff(ctx, "ship", 3, 4)
	require.NoError(t, err)
	assert.Equal(t, "status: \"three\" -> \"four\"\n", d)
}

// A plan file edited by hand at the same revision: the entry no longer matches it and is
// not shown as the current revision, but older revisions stay readable.
func TestHistoryAfterHandEdit(t *testing.T) {
	ctx := context.Background()
	b := NewMemoryBackend()
	s, err := NewStore(&StoreConfig{Backend: b, HistoryLimit: DefaultHistoryLimit})
	require.NoError(t, err)
	for _, st := range []string{"one", "two"} {
		_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo("- [ ] x\n"), Status: st})
		require.NoError(t, err)
	}
	cur, _, err := s.load(ctx, "ship")
	require.NoError(t, err)
	cur.Content = "- [x] x\n"
	require.NoError(t, b.Write(ctx, &WriteRequest{FilePath: s.planPath("ship"), Content: EncodePlan(cur)}))
	h, err := s.History(ctx, "ship")
	require.NoError(t, err)
	require.Len(t, h, 2)
	assert.Equal(t, Action(""), h[0].Action, "the hand edit has no known action")
	p, err := s.GetRevision(ctx, "ship", 1)
	require.NoError(t, err)
	assert.Equal(t, "one", p.Status)
}

func mustRevision(t *testing.T, s *Store, rev int64) (*Plan, string) {
	t.Helper()
	p, err := s.GetRevision(context.Background(), "ship", rev)
	require.NoError(t, err)
	return p, EncodePlan(p)
}
