package localfs

import (
	"slices"
	"strings"
	"sync"
)

// listOrders remembers, for the folders listed last, the names as the file system gave
// them and the order that sorts them. A folder whose entries did not change gives its
// names in the same order again (a rewrite renames over the same name), and comparing two
// lists costs a fraction of sorting one.
type listOrders struct {
	mu sync.Mutex
	by map[string]listOrder // folder → its last listing
}

type listOrder struct {
	read   []string
	sorted []int // read[sorted[0]] is the least name
}

// maxListOrders bounds the folders remembered: the plans folders a Store lists over and over.
const maxListOrders = 16

// minListOrder is the fewest names worth remembering: a small folder (a plan's history)
// sorts in less time than a lookup saves, and would crowd the plans folders out.
const minListOrder = 128

// sort returns the positions of names in sorted order, as a slice the caller must not
// change; names must not change afterwards either.
func (o *listOrders) sort(dir string, names []string) []int {
	remember := len(names) >= minListOrder
	if remember {
		o.mu.Lock()
		last, ok := o.by[dir]
		o.mu.Unlock()
		if ok && slices.Equal(last.read, names) {
			return last.sorted
		}
	}
	sorted := make([]int, len(names))
	for i := range sorted {
		sorted[i] = i
	}
	slices.SortFunc(sorted, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	if !remember {
		return sorted
	}
	o.mu.Lock()
	if o.by == nil || len(o.by) >= maxListOrders {
		o.by = map[string]listOrder{}
	}
	o.by[dir] = listOrder{read: names, sorted: sorted}
	o.mu.Unlock()
	return sorted
}
