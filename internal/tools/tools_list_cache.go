package tools

import (
	"sync"

	"github.com/einoplan/plan/internal/document"
)

// encodeListEntry is a summary as list_plans shows it: its title and current step cut short,
// so a page's size depends on how many plans it holds, not on what they say.
func encodeListEntry(sum *document.Summary) string {
	short := *sum
	short.Title = document.TruncateUTF8(short.Title, maxListTitle)
	short.Status = document.TruncateUTF8(short.Status, maxListStatus)
	short.Author = document.TruncateUTF8(short.Author, maxListStatus)
	for _, at := range [...]**document.Step{&short.CurrentStep, &short.NextStep} {
		if *at != nil {
			step := **at
			step.Text = document.TruncateUTF8(step.Text, maxListStepText)
			*at = &step
		}
	}
	js, err := ResultAPI.MarshalToString(&short)
	if err != nil {
		return "{}" // a Summary holds only strings, numbers and times: unreachable
	}
	return js
}

// Bounds of a list_plans entry's texts.
const (
	maxListTitle    = 100
	maxListStatus   = 40
	maxListStepText = 80
)

// listCache keeps each plan's list_plans entry while its summary stays the same, so only
// changed plans are encoded again. The Store's list cache hands out the same step and
// approval values while a plan is unchanged, so comparing them by pointer is exact: a
// re-read plan gets new ones, and is at worst encoded once more.
type listCache struct {
	mu      sync.Mutex
	entries map[string]listEntry
}

type listEntry struct {
	sum  document.Summary
	json string
}

// maxListCache bounds the entries kept; past it the cache starts again.
const maxListCache = 4096

func (c *listCache) encode(sum *document.Summary) string {
	c.mu.Lock()
	e, ok := c.entries[sum.Name]
	c.mu.Unlock()
	if ok && e.sum == *sum {
		return e.json
	}
	js := encodeListEntry(sum)
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxListCache {
		c.entries = map[string]listEntry{}
	}
	c.entries[sum.Name] = listEntry{sum: *sum, json: js}
	c.mu.Unlock()
	return js
}
