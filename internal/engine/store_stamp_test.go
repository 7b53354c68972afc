package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/memfs"
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

// While the plans folder's stamp stays the same, the summaries the digest renders at the
// start of each run come without listing the folder; a change made by another Store moves the stamp and shows in
// the very next digest.
func TestSummariesOfAnUnchangedFolderListNothing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	counting := &countingBackend{Backend: newLocal(t, root)}
	s := storeOn(t, counting, "")
	for _, name := range []string{"alpha", "beta", "gamma"} {
		_, err := s.Put(ctx, Update{Name: name, Content: ptrTo(watchBody)})
		require.NoError(t, err)
	}
	backdate(t, root)
	digest := func() string {
		plans, _, err := s.Summaries(ctx)
		require.NoError(t, err)
		var b strings.Builder
		for _, p := range plans {
			fmt.Fprintf(&b, "%s %q\n", p.Name, p.Status)
		}
		return b.String()
	}
	first := digest()
	require.Contains(t, first, "gamma")
	listed := counting.Lists.Load()
	for range 5 {
		assert.Equal(t, first, digest())
	}
	assert.LessOrEqual(t, counting.Lists.Load(), listed+1, "at most the listing the stamp then vouches for")
	listed = counting.Lists.Load()
	assert.Equal(t, first, digest())
	assert.Equal(t, listed, counting.Lists.Load(), "an unchanged folder is not listed again")

	other := storeOn(t, newLocal(t, root), "")
	_, err := other.SetStatus(ctx, "beta", "shipped", nil)
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
	s := storeOn(t, newLocal(t, root), "")
	_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo(watchBody)})
	require.NoError(t, err)
	backdate(t, root)
	for range 2 { // the second listing comes wholly from the cache, so the stamp vouches for it
		_, err := s.ListPage(ctx, ListOptions{})
		require.NoError(t, err)
	}
	file := filepath.Join(root, "plans", "ship.md")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, []byte(string(raw)+"- [ ] Release\n"), 0o644))
	earlier := time.Now().Add(-30 * time.Minute)
	require.NoError(t, os.Chtimes(file, earlier, earlier))

	later := time.Now().Add(DefaultFullScan)
	s.Now = func() time.Time { return later }
	l, err := s.ListPage(ctx, ListOptions{})
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
	s := storeOn(t, newLocal(t, root), "")
	_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo(watchBody)})
	require.NoError(t, err)
	backdate(t, root)
	for range 2 { // the second listing comes wholly from the cache: the stamp vouches for it
		_, err := s.ListPage(ctx, ListOptions{})
		require.NoError(t, err)
	}
	tick := make(chan time.Time)
	ch, err := s.watch(ctx, watchOptions{tick: tick, fullScan: time.Nanosecond})
	require.NoError(t, err)

	file := filepath.Join(root, "plans", "ship.md")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(raw), "- [ ] Build", "- [x] Build", 1)), 0o644))
	earlier := time.Now().Add(-30 * time.Minute)
	require.NoError(t, os.Chtimes(file, earlier, earlier))
	tick <- time.Now()
	c := Next(t, ch)
	assert.Equal(t, "ship", c.Name)
	assert.Equal(t, 1, c.Progress.Completed, "the step completed in place")
}

// scriptedStamp is a backend whose folder stamp the test sets: "" stands for a stamp that
// cannot vouch (the folder changed a moment ago).
type scriptedStamp struct {
	driver.Backend
	stamp string
}

func (b *scriptedStamp) FolderStamp(context.Context, string) (string, bool, error) {
	return b.stamp, b.stamp == "", nil
}

func (b *scriptedStamp) Unwrap() driver.Backend { return b.Backend }

// A stamp vouches only for a listing taken after it: once a listing the stamp could not
// vouch for replaced the one it did, the old stamp coming back lists the folder again.
func TestAStampNeverVouchesForALaterListing(t *testing.T) {
	ctx := context.Background()
	mem := memfs.New()
	b := &scriptedStamp{Backend: mem, stamp: "A"}
	s := storeOn(t, b, "")
	for _, name := range []string{"alpha", "beta"} {
		_, err := s.Put(ctx, Update{Name: name, Content: ptrTo(watchBody)})
		require.NoError(t, err)
	}
	for range 2 { // the second listing comes wholly from the cache: "A" vouches for it
		_, err := s.ListPage(ctx, ListOptions{})
		require.NoError(t, err)
	}
	file := "/plans/beta.md"
	beta, err := mem.Read(ctx, &driver.ReadRequest{FilePath: file})
	require.NoError(t, err)
	require.NoError(t, mem.Delete(ctx, &driver.DeleteRequest{FilePath: file})) // behind the Store's back
	b.stamp = ""
	l, err := s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Plans, 1)

	require.NoError(t, mem.Write(ctx, &driver.WriteRequest{FilePath: file, Content: beta.Content}))
	b.stamp = "A"
	l, err = s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	assert.Len(t, l.Plans, 2, "the listing of one plan was never vouched for by A")
}

// listingHook is a Backend that unwraps to the one it holds and runs hook once, before its
// first listing of the plans folder after hook is set: between the Store's reading of the
// folder's stamp and its listing, as the scheduler may.
type listingHook struct {
	driver.Backend
	hook atomic.Pointer[func()]
}

func (l *listingHook) Unwrap() driver.Backend { return l.Backend }

func (l *listingHook) LsInfo(ctx context.Context, r *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	if h := l.hook.Swap(nil); h != nil && r.Path == "/plans" {
		(*h)()
	}
	return l.Backend.LsInfo(ctx, r)
}

// listedWhileAbsent returns a Store on b whose first listing read the folder's stamp while
// the folder was missing, and listed it after another Store created the plan "ghost" there
// and listed it (made listable by settle, run before that listing).
func listedWhileAbsent(t *testing.T, b driver.Backend, settle func()) *Store {
	t.Helper()
	ctx := context.Background()
	hooked := &listingHook{Backend: b}
	s := storeOn(t, hooked, "")
	other := storeOn(t, b, "")
	between := func() {
		_, err := other.Put(ctx, Update{Name: "ghost", Content: ptrTo("- [ ] boo\n")})
		require.NoError(t, err)
		settle()
		_, err = other.ListPage(ctx, ListOptions{})
		require.NoError(t, err)
	}
	hooked.hook.Store(&between)
	l, err := s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Plans, 1)
	return s
}

// A stamp read while the plans folder was absent vouches for no listing once the folder is
// absent again: a plan created and listed between that stamp and its listing, then removed
// with the folder, never lingers in List or the digest.
func TestAnAbsentFoldersStampNeverVouchesForAnOlderListing(t *testing.T) {
	ctx := context.Background()
	mem := memfs.New()
	empty := mem.Snapshot()
	s := listedWhileAbsent(t, mem, func() {})

	mem.Restore(empty)
	l, err := s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, l.Plans, "a plan whose file is gone is listed")
	plans, _, err := s.Summaries(ctx)
	require.NoError(t, err)
	assert.Empty(t, plans, "the summaries the digest renders show a plan whose file is gone")
}

// listedThen is a Backend that unwraps to the one it holds and runs then once, right after
// its next listing of the plans folder: between the listing and the reads that follow it.
type listedThen struct {
	driver.Backend
	then func()
}

func (l *listedThen) Unwrap() driver.Backend { return l.Backend }

func (l *listedThen) LsInfo(ctx context.Context, r *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	out, err := l.Backend.LsInfo(ctx, r)
	if h := l.then; h != nil && r.Path == "/plans" {
		l.then = nil
		h()
	}
	return out, err
}

// MemoryBackend's Restore writes every file anew: a summary read from a newer file, cached
// under the size and time an older listing showed, is not taken for the restored file.
func TestAListAfterRestoreSummarizesTheRestoredFiles(t *testing.T) {
	ctx := context.Background()
	mem := memfs.New()
	hooked := &listedThen{Backend: mem}
	s := storeOn(t, hooked, "")
	_, err := s.Put(ctx, Update{Name: "x", Content: ptrTo("- [ ] a\n"), Title: "old"})
	require.NoError(t, err)
	snap := mem.Snapshot()
	other := storeOn(t, mem, "")
	hooked.then = func() {
		_, err := other.Put(ctx, Update{Name: "x", Title: "new"})
		require.NoError(t, err)
	}
	_, err = s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	mem.Restore(snap)
	l, err := s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	require.Len(t, l.Plans, 1)
	assert.Equal(t, "old", l.Plans[0].Title, "List summarizes a file that is no longer there")
}

// On LocalBackend too, a stamp read while the plans folder was missing vouches for no
// listing: a plan created and listed between that stamp and its listing, then removed with
// the whole folder, never lingers in List.
func TestAMissingLocalFolderVouchesForNoListing(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	// Backdated past the racy window, so the other Store's listing caches the plan.
	s := listedWhileAbsent(t, newLocal(t, root), func() { backdate(t, root) })

	require.NoError(t, os.RemoveAll(filepath.Join(root, "plans")))
	l, err := s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, l.Plans, "a plan whose folder is gone is listed")
}
