package localfs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/internal/keptlist"
)

// A remembered listing serves only the very list it was made of: other names, the same
// names read in another order, or a changed stat give what a first listing gives, and what
// a caller does to the entries it got changes nothing later.
func TestKeptListingsListWhatWasReadEachTime(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var o keptListings
	for _, size := range []int{10, keptlist.MinEntries + 100} { // made every time; remembered
		names := make([]string, size)
		stats := make([]entryStat, size)
		for i := range names {
			names[i] = fmt.Sprintf("p%03d.md", r.IntN(1000))
			stats[i] = randomStat(r)
		}
		listEachRound(t, r, &o, names, stats)
	}
}

func randomStat(r *rand.Rand) entryStat {
	return entryStat{isDir: r.IntN(8) == 0, size: r.Int64N(4), mod: time.Unix(1_700_000_000+r.Int64N(3), r.Int64N(3))}
}

func listEachRound(t *testing.T, r *rand.Rand, o *keptListings, names []string, stats []entryStat) {
	for round := range 300 {
		next, nextStats := slices.Clone(names), slices.Clone(stats)
		switch round % 5 {
		case 1: // one name replaced
			next[r.IntN(len(next))] = fmt.Sprintf("q%03d.md", r.IntN(1000))
		case 2: // the same names read in another order
			i, j := r.IntN(len(next)), r.IntN(len(next))
			next[i], next[j] = next[j], next[i]
			nextStats[i], nextStats[j] = nextStats[j], nextStats[i]
		case 3: // one name more
			next = append(next, fmt.Sprintf("r%03d.md", r.IntN(1000)))
			nextStats = append(nextStats, randomStat(r))
		case 4: // one file changed, the names as they were
			nextStats[r.IntN(len(next))] = randomStat(r)
		}
		dir := fmt.Sprint("d", r.IntN(keptlist.MaxFolders+2)) // more folders than are remembered
		got := o.list(dir, "/"+dir+"/", next, nextStats)
		var fresh keptListings
		want := fresh.list(dir, "/"+dir+"/", next, nextStats)
		require.Equal(t, want, got, "round %d", round)
		require.True(t, slices.IsSortedFunc(got, func(a, b filesystem.FileInfo) int { return strings.Compare(a.Path, b.Path) }), "round %d", round)
		for i := range got {
			got[i] = filesystem.FileInfo{Path: "scribbled"}
		}
		names, stats = next, nextStats
	}
}

// A folder of more names than are kept in all is listed, and not kept.
func TestKeptListingsLeaveOutAFolderLargerThanTheBound(t *testing.T) {
	var o keptListings
	huge := make([]string, keptlist.MaxEntries+1)
	for i := range huge {
		huge[i] = fmt.Sprintf("p%06d.md", i)
	}
	require.Len(t, o.list("huge", "/huge/", huge, make([]entryStat, len(huge))), len(huge))
	_, kept := o.Get("huge")
	require.False(t, kept)
}
