package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/localfs"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMergeByNameSortsByName merges random fresh entries into random listings in name
// order, names where one is another followed by '-' included, against a plain sort.
func TestMergeByNameSortsByName(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("ab-_0")
	for round := 0; round < 2000; round++ {
		seen := map[string]bool{}
		var entries []*cachedSummary
		for n := rng.IntN(20); len(entries) < n; {
			name := make([]byte, 1+rng.IntN(4))
			for i := range name {
				name[i] = alphabet[rng.IntN(len(alphabet))]
			}
			if !seen[string(name)] {
				seen[string(name)] = true
				entries = append(entries, &cachedSummary{summary: document.Summary{Name: string(name)}})
			}
		}
		split := rng.IntN(len(entries) + 1)
		ordered, fresh := slices.Clone(entries[:split]), slices.Clone(entries[split:])
		slices.SortFunc(ordered, compareCached)
		shared := slices.Clone(ordered)
		want := slices.Clone(entries)
		slices.SortFunc(want, compareCached)
		if got := mergeByName(ordered, fresh); !slices.Equal(got, want) {
			t.Fatalf("round %d: %v, want %v", round, summaryNames(got), summaryNames(want))
		}
		if !slices.Equal(ordered, shared) {
			t.Fatalf("round %d: the shared listing was changed", round)
		}
	}
}

// TestCachedInNameOrderIsTheHitsSorted gives a listing's cache hits in name order from
// random last listings: holding exactly the hits, more (plans since deleted, entries of
// older listings, a path a backend listed twice), fewer (plans cached since by another
// listing), or none.
func TestCachedInNameOrderIsTheHitsSorted(t *testing.T) {
	s, err := NewStore(&StoreConfig{Backend: memfs.New()})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for round := 0; round < 2000; round++ {
		gen := uint64(round + 2)
		var prev, hits []*cachedSummary
		for i := range rng.IntN(12) {
			c := &cachedSummary{summary: document.Summary{Name: string(rune('a' + i))}, seen: uint64(rng.IntN(2))}
			inPrev, hit := rng.IntN(5) > 0, rng.IntN(3) > 0
			if hit {
				c.seen = gen
				hits = append(hits, c)
			}
			if inPrev {
				prev = append(prev, c)
				if rng.IntN(8) == 0 { // listed twice by a backend
					prev = append(prev, c)
				}
			}
		}
		rng.Shuffle(len(hits), func(i, j int) { hits[i], hits[j] = hits[j], hits[i] })
		want := slices.Clone(hits)
		slices.SortFunc(want, compareCached)
		s.shared.sorted = prev
		got := s.cachedInNameOrder(hits, gen)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: %v from last listing %v, want %v", round, summaryNames(got), summaryNames(prev), summaryNames(want))
		}
	}
}

func summaryNames(entries []*cachedSummary) []string {
	out := make([]string, len(entries))
	for i, c := range entries {
		out[i] = c.summary.Name
	}
	return out
}

// TestSummariesAreHandedOutAgainWhileTheListingIs gives the digest the same slice of
// summaries while the folder is unchanged, and a new one with the change after another
// Store changed a plan.
func TestSummariesAreHandedOutAgainWhileTheListingIs(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	other := storeOn(t, backend, "")
	for _, name := range []string{"a", "b"} {
		_, err := other.Put(ctx, Update{Name: name, Content: ptrTo("- [ ] x")})
		require.NoError(t, err)
	}
	first, _, err := s.Summaries(ctx)
	require.NoError(t, err)
	again, _, err := s.Summaries(ctx)
	require.NoError(t, err)
	require.Len(t, again, 2)
	assert.Same(t, &first[0], &again[0], "the unchanged listing's summaries are not made again")

	_, err = other.SetStatus(ctx, "b", "moved", nil)
	require.NoError(t, err)
	changed, _, err := s.Summaries(ctx)
	require.NoError(t, err)
	require.Len(t, changed, 2)
	assert.Equal(t, "moved", changed[1].Status)
	assert.Equal(t, "draft", first[1].Status, "a slice handed out before is never changed")
}

// List returns plans sorted by name with their current status, whether served from its cache
// or after changes made through another Store or behind the Store's back.
func TestListStaysSortedAcrossCachedListings(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	names := func() []string {
		l, err := s.ListPage(ctx, ListOptions{})
		require.NoError(t, err)
		var out []string
		for _, p := range l.Plans {
			out = append(out, p.Name+":"+p.Status)
		}
		return out
	}
	for _, n := range []string{"m", "c", "x"} {
		body := "body"
		_, err := s.Put(ctx, Update{Name: n, Content: &body, Status: "s"})
		require.NoError(t, err)
	}
	require.Equal(t, []string{"c:s", "m:s", "x:s"}, names())
	require.Equal(t, []string{"c:s", "m:s", "x:s"}, names(), "served from the cache")

	other := storeOn(t, backend, "/plans")
	body := "b"
	_, err := other.Put(ctx, Update{Name: "a", Content: &body, Status: "new"})
	require.NoError(t, err)
	require.Equal(t, []string{"a:new", "c:s", "m:s", "x:s"}, names())
	// Behind the Store's back: a deletion and a rewrite.
	require.NoError(t, backend.Delete(ctx, &driver.DeleteRequest{FilePath: "/plans/m.md"}))
	p, err := s.Get(ctx, "x")
	require.NoError(t, err)
	p.Status = "t"
	require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/x.md", Content: document.EncodePlan(p)}))
	require.Equal(t, []string{"a:new", "c:s", "x:t"}, names())
	require.Equal(t, []string{"a:new", "c:s", "x:t"}, names())
}

// TestListFollowsEveryChangeInNameOrder lists through one Store while another creates,
// rewrites and deletes plans at random, names where one is another followed by '-'
// included: after each change the listing is what the plan files hold, read without any
// Store, in name order, on a backend that lists in no order (MemoryBackend) and one that
// lists in path order.
func TestListFollowsEveryChangeInNameOrder(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"memory", "local"} {
		t.Run(kind, func(t *testing.T) {
			var backend driver.Backend = memfs.New()
			if kind == "local" {
				b, err := localfs.New(t.TempDir())
				require.NoError(t, err)
				backend = b
			}
			lister := mustStore(t, StoreConfig{Backend: backend, HistoryLimit: -1})
			writer := mustStore(t, StoreConfig{Backend: backend, HistoryLimit: -1})
			names := []string{"a", "a-b", "a-b-c", "a0", "a_b", "ab", "b", "b-a", "c-1", "c"}
			rng := rand.New(rand.NewPCG(7, 8))
			for round := 0; round < 150; round++ {
				name := names[rng.IntN(len(names))]
				if rng.IntN(4) == 0 {
					_, _ = writer.Delete(ctx, name, nil)
				} else {
					body := fmt.Sprintf("- [ ] step %d", round)
					_, err := writer.Put(ctx, Update{Name: name, Content: &body, Status: fmt.Sprint(round)})
					require.NoError(t, err)
				}
				want := planFiles(t, backend)
				got, err := lister.ListPage(ctx, ListOptions{})
				require.NoError(t, err)
				require.Equal(t, want, listed(got), "round %d", round)
				if rng.IntN(2) == 0 { // unchanged since: the listing's order is reused
					got, err = lister.ListPage(ctx, ListOptions{})
					require.NoError(t, err)
					require.Equal(t, want, listed(got), "round %d, listed again", round)
				}
			}
		})
	}
}

// planFiles is each plan file's name, revision and status as listed, in name order,
// read from the backend without a Store.
func planFiles(t *testing.T, backend driver.Backend) []string {
	t.Helper()
	ctx := context.Background()
	infos, err := backend.LsInfo(ctx, &driver.LsInfoRequest{Path: api.DefaultBaseDir})
	require.NoError(t, err)
	var out []string
	for _, info := range infos {
		name, ok := strings.CutSuffix(path.Base(info.Path), ".md")
		if info.IsDir || !ok {
			continue
		}
		raw, err := backend.Read(ctx, &driver.ReadRequest{FilePath: info.Path})
		require.NoError(t, err)
		p, err := document.DecodePlan(name, raw.Content)
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("%s r%d %s", p.Name, p.Revision, p.Status))
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.Fields(a)[0], strings.Fields(b)[0]) })
	return out
}

// listed is each listed plan's name, revision and status.
func listed(l *Listing) []string {
	out := make([]string, len(l.Plans))
	for i, p := range l.Plans {
		out[i] = fmt.Sprintf("%s r%d %s", p.Name, p.Revision, p.Status)
	}
	return out
}

// TestASlowListingLeavesNoStaleListingBehind runs a listing that is held while re-reading
// a plan, and meanwhile another agent changes and adds plans and two listings see it, the
// second vouched for by the folder stamp. When the slow listing ends, its older view must
// neither be served under that stamp nor make later listings drop the added plan.
func TestASlowListingLeavesNoStaleListingBehind(t *testing.T) {
	ctx := context.Background()
	mem := memfs.New()
	held := &heldRead{Backend: mem, path: api.DefaultBaseDir + "/x.md", entered: make(chan struct{}), release: make(chan struct{})}
	writer := mustStore(t, StoreConfig{Backend: mem, HistoryLimit: -1})
	lister := mustStore(t, StoreConfig{Backend: held, HistoryLimit: -1})
	put := func(name, status string) {
		t.Helper()
		body := "- [ ] step"
		_, err := writer.Put(ctx, Update{Name: name, Content: &body, Status: status})
		require.NoError(t, err)
	}
	list := func() []string {
		t.Helper()
		l, err := lister.ListPage(ctx, ListOptions{})
		require.NoError(t, err)
		return listed(l)
	}
	put("a", "old")
	put("x", "old")
	list()
	list()
	put("x", "changed") // the next listing re-reads x
	held.armed.Store(true)
	slow := make(chan []string)
	go func() {
		l, err := lister.ListPage(ctx, ListOptions{})
		assert.NoError(t, err)
		slow <- listed(l)
	}()
	<-held.entered
	put("a", "new")
	put("n", "added")
	want := planFiles(t, mem)
	require.Equal(t, want, list(), "a listing that re-reads a and n")
	require.Equal(t, want, list(), "a listing from the cache, which the stamp vouches for")
	close(held.release)
	assert.Equal(t, []string{"a r1 old", "x r2 changed"}, <-slow, "the slow listing saw the folder as it was")
	assert.Equal(t, want, list(), "after the slow listing ended")
	assert.Equal(t, want, list(), "and once more")
}

// heldRead holds the first bounded read of path once armed until release is closed.
type heldRead struct {
	*memfs.Backend
	path             string
	armed            atomic.Bool
	entered, release chan struct{}
}

func (h *heldRead) ReadAtMost(ctx context.Context, p string, max int64) (string, error) {
	if p == h.path && h.armed.CompareAndSwap(true, false) {
		close(h.entered)
		<-h.release
	}
	return h.Backend.ReadAtMost(ctx, p, max)
}

func (h *heldRead) Unwrap() driver.Backend { return h.Backend }

// BenchmarkList is List of 1,000 unchanged plans on a MemoryBackend, each with a step in
// progress and a ready one, as every agent's list_plans and every board page makes it: the
// summaries come from the list cache, and each one handed out is the caller's own.
//
//	go test -run '^$' -bench List -benchmem ./internal/engine/
func BenchmarkList(b *testing.B) {
	ctx := context.Background()
	s, err := NewStore(&StoreConfig{Backend: memfs.New()})
	if err != nil {
		b.Fatal(err)
	}
	body := "- [x] build\n- [ ] test\n- [ ] ship (after 1)\n"
	for i := range 1000 {
		name := fmt.Sprintf("p%04d", i)
		if _, err := s.Put(ctx, Update{Name: name, Content: &body}); err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.MoveStep(ctx, StepMove{Name: name, Step: 2, State: document.StepInProgress, By: "w1"}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.ListPage(ctx, ListOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := s.ListPage(ctx, ListOptions{})
		if err != nil || len(l.Plans) != 1000 {
			b.Fatal(len(l.Plans), err)
		}
	}
}
