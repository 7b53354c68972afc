package localfs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// A remembered order serves only the very list it was worked out for: any other names, or
// the same names read in another order, are sorted anew.
func TestListOrdersSortWhatWasReadEachTime(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var o listOrders
	for _, size := range []int{10, minListOrder + 100} { // sorted every time; remembered
		names := make([]string, size)
		for i := range names {
			names[i] = fmt.Sprintf("p%03d.md", r.IntN(1000))
		}
		sortEachRound(t, r, &o, names)
	}
}

func sortEachRound(t *testing.T, r *rand.Rand, o *listOrders, names []string) {
	for round := range 200 {
		next := slices.Clone(names)
		switch round % 4 {
		case 1: // one name replaced
			next[r.IntN(len(next))] = fmt.Sprintf("q%03d.md", r.IntN(1000))
		case 2: // the same names read in another order
			i, j := r.IntN(len(next)), r.IntN(len(next))
			next[i], next[j] = next[j], next[i]
		case 3: // one name more
			next = append(next, fmt.Sprintf("r%03d.md", r.IntN(1000)))
		}
		dir := fmt.Sprint("d", r.IntN(maxListOrders+2)) // more folders than are remembered
		var got []string
		for _, i := range o.sort(dir, next) {
			got = append(got, next[i])
		}
		require.True(t, slices.IsSorted(got), "round %d", round)
		want := slices.Clone(next)
		slices.Sort(want)
		require.Equal(t, want, got, "round %d", round)
		names = next
	}
}
