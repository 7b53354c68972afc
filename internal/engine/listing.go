package engine

import (
	"time"

	"github.com/einoplan/plan/internal/document"
)

// Listing is the result of List: summaries sorted by name, and one warning per plan file
// that could not be read, so "no plans" is never confused with "some failed to load". From
// ListPage, Plans is one page: Total counts every plan that matches, and NextCursor, when
// not empty, continues after the page. The steps and approval a summary points to are
// shared with the Store's cache, which every later List and digest reads: never change them.
type Listing struct {
	Plans      []document.Summary `json:"plans"`
	Warnings   []Warning          `json:"warnings,omitempty"`
	Total      int                `json:"total"`
	NextCursor string             `json:"next_cursor,omitempty"`
}

// ListOptions selects a page of plans, in name order.
type ListOptions struct {
	// Limit is the most plans a page holds; 0 means all.
	Limit int
	// Cursor is the NextCursor of the previous page; "" starts at the first plan.
	Cursor string
	// Status keeps only plans whose status is exactly this; "" keeps all.
	Status string
}

// Warning names a plan file that List could not summarize.
type Warning struct {
	Name    string        `json:"name"`
	Code    document.Code `json:"code"`
	Message string        `json:"message"`
	// Err is the failure with its facts, for callers that render their own words.
	Err *document.Error `json:"-"`
}

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
