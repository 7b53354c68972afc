package localfs

import (
	"slices"
	"strings"
	"sync"

	"github.com/cloudwego/eino/adk/filesystem"
)

// keptListings remembers, for the folders listed last, the names as the file system gave
// them, their stats, the order that sorts them and the entries made of them. A folder
// whose entries did not change gives its names in the same order again (a rewrite renames
// over the same name): comparing two lists costs a fraction of sorting one, and an entry
// whose stat did not change is the entry made last time.
type keptListings struct {
	mu      sync.Mutex
	by      map[string]keptListing // folder → its last listing
	entries int                    // of every listing kept
}

// keptListing is one folder's last listing; it is never changed once made.
type keptListing struct {
	read    []string
	stats   []entryStat // of read[i]
	sorted  []int       // read[sorted[0]] is the least name
	entries []filesystem.FileInfo
}

// maxKeptListings bounds the folders remembered: the plans folders a Store lists over and
// over. maxKeptEntries bounds their entries in all, so what is kept stays a few megabytes; a
// folder larger than that is listed afresh every time.
const (
	maxKeptListings = 16
	maxKeptEntries  = 1 << 16
)

// minKeptListing is the fewest names worth remembering: a small folder (a plan's history)
// sorts in less time than a lookup saves, and would crowd the plans folders out.
const minKeptListing = 128

// list returns the entries of names (stats[i] is the stat of names[i]) in the folder dir,
// whose paths start with prefix, sorted by name. names and stats must not change afterwards.
func (o *keptListings) list(dir, prefix string, names []string, stats []entryStat) []filesystem.FileInfo {
	remember := len(names) >= minKeptListing && len(names) <= maxKeptEntries
	var last keptListing
	same := false
	if remember {
		o.mu.Lock()
		last, same = o.by[dir]
		o.mu.Unlock()
		same = same && slices.Equal(last.read, names)
	}
	sorted := last.sorted
	if !same {
		sorted = make([]int, len(names))
		for i := range sorted {
			sorted[i] = i
		}
		slices.SortFunc(sorted, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	}
	out := make([]filesystem.FileInfo, len(sorted))
	times := newModTimes()
	for k, i := range sorted {
		st := &stats[i]
		if same && *st == last.stats[i] {
			out[k] = last.entries[k]
			continue
		}
		// A link is listed as itself, never as what it leads to: reading through it is refused.
		out[k] = filesystem.FileInfo{Path: prefix + names[i], IsDir: st.isDir, Size: st.size, ModifiedAt: times.format(st.mod)}
	}
	if !remember {
		return out
	}
	o.keep(dir, keptListing{read: names, stats: stats, sorted: sorted, entries: slices.Clone(out)})
	return out
}

// keep remembers l for dir; a listing beyond a bound makes room by forgetting all the others.
func (o *keptListings) keep(dir string, l keptListing) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if old, kept := o.by[dir]; kept {
		o.entries -= len(old.read)
		delete(o.by, dir)
	}
	if o.by == nil || len(o.by) >= maxKeptListings || o.entries+len(l.read) > maxKeptEntries {
		o.by = map[string]keptListing{}
		o.entries = 0
	}
	o.by[dir] = l
	o.entries += len(l.read)
}
