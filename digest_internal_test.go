package plan

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// TestNewestFirstMatchesStableSort checks newestFirst against the first k of a stable sort
// by UpdatedAt, descending, including many plans updated at the same instant.
func TestNewestFirstMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := 0; round < 500; round++ {
		n := rng.IntN(40)
		plans := make([]*Summary, n)
		for i := range plans {
			plans[i] = &Summary{Name: string(rune('a' + i%26)), Revision: int64(i), UpdatedAt: base.Add(time.Duration(rng.IntN(8)) * time.Second)}
		}
		want := append([]*Summary(nil), plans...)
		sort.SliceStable(want, func(i, j int) bool { return want[i].UpdatedAt.After(want[j].UpdatedAt) })
		for _, k := range []int{0, 1, 3, 12, 50} {
			got := newestFirst(plans, k)
			if len(got) != min(k, n) {
				t.Fatalf("n=%d k=%d: %d plans, want %d", n, k, len(got), min(k, n))
			}
			for i, p := range got {
				if p.Revision != want[i].Revision {
					t.Fatalf("n=%d k=%d: position %d holds plan %d, want %d", n, k, i, p.Revision, want[i].Revision)
				}
			}
		}
	}
}
