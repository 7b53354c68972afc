package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/einoplan/plan/internal/document"
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
	s, err := NewStore(&StoreConfig{Backend: backend})
	require.NoError(t, err)
	other, err := NewStore(&StoreConfig{Backend: backend})
	require.NoError(t, err)
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
