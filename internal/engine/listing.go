package engine

import (
	"time"

	"github.com/einoplan/plan/internal/document"
)

// cachedSummary is replaced, never changed, when its plan changes; only seen (the last
// listing that returned it) is updated, under cacheMu. An entry that was never cached (a
// file changed within the racy window) is private to one listing.
type cachedSummary struct {
	size     int64
	modified string
	summary  document.Summary
	seen     uint64
}

// stampedListing is the listing a stamp vouches for: the entries are shared.sorted.
type stampedListing struct {
	stamp  string
	at     time.Time
	strays []Warning
}
