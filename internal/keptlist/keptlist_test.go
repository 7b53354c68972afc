package keptlist

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// The kept listings never hold more than MaxFolders folders or MaxEntries entries, a
// listing larger than that is not kept at all, and relisting a folder replaces its own.
func TestKeptListingsStayWithinTheirBounds(t *testing.T) {
	var f Folders[int]
	total := func() int {
		n := 0
		for _, k := range f.by {
			n += k.entries
		}
		require.Equal(t, n, f.entries, "entries counted and kept")
		return n
	}
	kept := func(dir string) bool { _, ok := f.Get(dir); return ok }
	for i := range MaxFolders {
		f.Put(fmt.Sprint("/d", i), i, MinEntries)
	}
	f.Put("/d0", 0, MinEntries+1) // the same folder again: no room needed
	require.Len(t, f.by, MaxFolders)
	require.Equal(t, MaxFolders*MinEntries+1, total())
	f.Put("/another", 0, MinEntries)
	require.Len(t, f.by, 1, "a folder beyond the bound")
	require.True(t, kept("/another"))
	half := (MaxEntries - MinEntries) / 2
	f.Put("/big1", 1, half)
	f.Put("/big2", 2, half)
	require.Len(t, f.by, 3)
	require.Equal(t, 2*half+MinEntries, total())
	f.Put("/big3", 3, half)
	require.False(t, kept("/big1"), "past the bound on entries")
	require.True(t, kept("/big3"))
	require.LessOrEqual(t, total(), MaxEntries)
	f.Put("/big3", 3, MaxEntries+1)
	require.False(t, kept("/big3"), "a listing over the bound was kept, or the old one stayed")
	require.Equal(t, 0, total())
	l, ok := f.Get("/never")
	require.False(t, ok)
	require.Zero(t, l)
}
