package localfs

import (
	"github.com/einoplan/plan/internal/modtime"

	"slices"
	"strings"

	"github.com/cloudwego/eino/adk/filesystem"

	"github.com/einoplan/plan/internal/keptlist"
)

// keptListings remembers, for the large folders listed last (see keptlist), the names as
// the file system gave them, their stats, the order that sorts them and the entries made of
// them. A folder whose entries did not change gives its names in the same order again (a
// rewrite renames over the same name): comparing two lists costs a fraction of sorting one,
// and an entry whose stat did not change is the entry made last time.
type keptListings struct{ keptlist.Folders[keptListing] }

// keptListing is one folder's last listing; it is never changed once made.
type keptListing struct {
	read    []string
	stats   []entryStat // of read[i]
	sorted  []int       // read[sorted[0]] is the least name
	entries []filesystem.FileInfo
}

// list returns the entries of names (stats[i] is the stat of names[i]) in the folder dir,
// whose paths start with prefix, sorted by name. names and stats must not change afterwards.
func (o *keptListings) list(dir, prefix string, names []string, stats []entryStat) []filesystem.FileInfo {
	remember := len(names) >= keptlist.MinEntries
	var last keptListing
	same := false
	if remember {
		last, same = o.Get(dir)
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
	times := modtime.New()
	for k, i := range sorted {
		st := &stats[i]
		if same && *st == last.stats[i] {
			out[k] = last.entries[k]
			continue
		}
		// A link is listed as itself, never as what it leads to: reading through it is refused.
		out[k] = filesystem.FileInfo{Path: prefix + names[i], IsDir: st.isDir, Size: st.size, ModifiedAt: times.Format(st.mod)}
	}
	if remember && len(names) <= keptlist.MaxEntries {
		o.Put(dir, keptListing{read: names, stats: stats, sorted: sorted, entries: slices.Clone(out)}, len(names))
	}
	return out
}
