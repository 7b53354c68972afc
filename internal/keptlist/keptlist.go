// Package keptlist keeps, for a Backend, the last listing of each of the large folders it
// listed, so that listing one again after a few of its entries changed costs less than
// listing it afresh. What is kept is bounded in folders and in entries.
package keptlist

import "sync"

// Folders of at least MinEntries entries are worth keeping: a smaller one lists afresh as
// quickly. At most MaxFolders listings and MaxEntries entries in all are kept, a few
// megabytes; a folder larger than that is listed afresh every time.
const (
	MinEntries = 128
	MaxFolders = 16
	MaxEntries = 1 << 16
)

// Folders maps a folder to its last listing L. The zero value is ready to use; a listing
// put in must never change afterwards, as other goroutines may be reading it.
type Folders[L any] struct {
	mu      sync.Mutex
	by      map[string]kept[L]
	entries int // of every listing kept
}

type kept[L any] struct {
	listing L
	entries int
}

// Get returns the listing kept for dir.
func (f *Folders[L]) Get(dir string) (L, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k, ok := f.by[dir]
	return k.listing, ok
}

// Put keeps l, a listing of entries entries, for dir in place of the one kept before,
// unless l alone passes MaxEntries; a listing beyond a bound makes room by forgetting all
// the others.
func (f *Folders[L]) Put(dir string, l L, entries int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if old, ok := f.by[dir]; ok {
		f.entries -= old.entries
		delete(f.by, dir)
	}
	if entries > MaxEntries {
		return
	}
	if f.by == nil || len(f.by) >= MaxFolders || f.entries+entries > MaxEntries {
		f.by = map[string]kept[L]{}
		f.entries = 0
	}
	f.by[dir] = kept[L]{l, entries}
	f.entries += entries
}
