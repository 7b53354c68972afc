package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// backdate sets the modification time of the plans folder under root, and of every file in
// it, an hour back, past any racy window.
func backdate(t *testing.T, root string) {
	t.Helper()
	dir := filepath.Join(root, "plans")
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	past := time.Now().Add(-time.Hour)
	for _, n := range names {
		require.NoError(t, os.Chtimes(filepath.Join(dir, n.Name()), past, past))
	}
	require.NoError(t, os.Chtimes(dir, past, past))
}

// While the plans folder's stamp stays the same, the digest at the start of each run comes
// without listing the folder; a change made by another Store moves the stamp and shows in
// the very next digest.
func TestDigestOfAnUnchangedFolderListsNothing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	counting := &countingBackend{Backend: newLocalForWatch(t, root)}
	s := newWatchStore(t, counting)
	for _, name := range []string{"alpha", "beta", "gamma"} {
		_, err := s.Put(ctx, Update{Name: name, Content: ptrTo(watchBody)})
		require.NoError(t, err)
	}
	backdate(t, root)
	mw, err := New(ctx, &Config{Store: s})
	require.NoError(t, err)
	digest := func() string {
		_, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{Instruction: "base"})
		require.NoError(t, err)
		return rc.Instruction
	}
	first := digest()
	require.Contains(t, first, "gamma")
	listed := counting.lists.Load()
	for range 5 {
		assert.Equal(t, first, digest())
	}
	assert.LessOrEqual(t, counting.lists.Load(), listed+1, "at most the listing the stamp then vouches for")
	listed = counting.lists.Load()
	assert.Equal(t, first, digest())
	assert.Equal(t, listed, counting.lists.Load(), "an unchanged folder is not listed again")

	other := newWatchStore(t, newLocalForWatch(t, root))
	_, err = other.SetStatus(ctx, "beta", "shipped", nil)
	require.NoError(t, err)
	assert.Contains(t, digest(), `"shipped"`)
	_, err = other.Delete(ctx, "gamma", nil)
	require.NoError(t, err)
	assert.NotContains(t, digest(), "gamma")
}

// A program that rewrites a plan file in place leaves the folder's stamp as it was; the
// listing the stamp vouches for is trusted for at most defaultFullScan, then the rewrite
// shows.
func TestInPlaceRewriteShowsOnceTheStampsTrustEnds(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := newWatchStore(t, newLocalForWatch(t, root))
	_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo(watchBody)})
	require.NoError(t, err)
	backdate(t, root)
	for range 2 { // the second listing comes wholly from the cache, so the stamp vouches for it
		_, err := s.List(ctx)
		require.NoError(t, err)
	}
	file := filepath.Join(root, "plans", "ship.md")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, []byte(string(raw)+"- [ ] Release\n"), 0o644))
	earlier := time.Now().Add(-30 * time.Minute)
	require.NoError(t, os.Chtimes(file, earlier, earlier))

	later := time.Now().Add(defaultFullScan)
	s.now = func() time.Time { return later }
	l, err := s.List(ctx)
	require.NoError(t, err)
	require.Len(t, l.Plans, 1)
	assert.Equal(t, 3, l.Plans[0].Progress.Total, "the step added in place")
}

// The watch's periodic full scan lists the folder even while its stamp vouches for the
// Store's last listing, so a plan file rewritten in place by another program is seen at
// the next full scan, not only once the stamp's trust ends.
func TestWatchFullScanSeesAnInPlaceRewriteTheStampMisses(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := t.TempDir()
	s := newWatchStore(t, newLocalForWatch(t, root))
	_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo(watchBody)})
	require.NoError(t, err)
	backdate(t, root)
	for range 2 { // the second listing comes wholly from the cache: the stamp vouches for it
		_, err := s.List(ctx)
		require.NoError(t, err)
	}
	tick := make(chan time.Time)
	ch, err := s.Watch(ctx, WatchOptions{tick: tick, fullScan: time.Nanosecond})
	require.NoError(t, err)

	file := filepath.Join(root, "plans", "ship.md")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(raw), "- [ ] Build", "- [x] Build", 1)), 0o644))
	earlier := time.Now().Add(-30 * time.Minute)
	require.NoError(t, os.Chtimes(file, earlier, earlier))
	tick <- time.Now()
	c := next(t, ch)
	assert.Equal(t, "ship", c.Name)
	assert.Equal(t, 1, c.Progress.Completed, "the step completed in place")
}
