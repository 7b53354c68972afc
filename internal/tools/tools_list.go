package tools

import (
	"context"
	"strings"
	"sync"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
)

// Bounds of one list_plans page.
const (
	defaultListLimit = 50
	maxListLimit     = 200
	maxListBytes     = 16 << 10
	maxListWarnings  = 20
)

type listWarning struct {
	Name    string        `json:"name"`
	Code    document.Code `json:"code"`
	Message string        `json:"message"`
}

// RunListPlans answers one page: at most limit plans (50 by default) after cursor, and never
// more than 16 KiB, so a folder of any size fits a model's context. Each cached summary is
// encoded once while it stays the same (listCache), so a page of unchanged plans costs little
// more than copying bytes.
func RunListPlans(ctx context.Context, env *ToolEnv, a Args) (any, error) {
	f := a.fields()
	limit, cursor, status := f.integer(pLimit), f.str(pCursor), f.str(pStatusFilter)
	if f.err != nil {
		return nil, f.err
	}
	opts := engine.ListOptions{Limit: defaultListLimit, Cursor: cursor, Status: status}
	if limit != nil {
		if *limit < 1 || *limit > maxListLimit {
			return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonListLimit, Field: pLimit.Name, Limit: maxListLimit})
		}
		opts.Limit = int(*limit)
	}
	listing, err := env.Store.ListPage(ctx, opts)
	if err != nil {
		return nil, err
	}
	warnings, next := listing.Warnings, listing.NextCursor
	// Warnings are encoded first, so the plans get the rest of the page's bytes.
	var tail strings.Builder
	if cursor == "" && len(warnings) > 0 {
		shown := make([]listWarning, 0, min(len(warnings), maxListWarnings))
		for _, w := range warnings[:min(len(warnings), maxListWarnings)] {
			msg := w.Message
			if w.Err != nil {
				msg = env.ErrorMessage(w.Err)
			}
			shown = append(shown, listWarning{Name: w.Name, Code: w.Code, Message: document.TruncateUTF8(msg, 300)})
		}
		js, err := ResultAPI.MarshalToString(shown)
		if err != nil {
			return nil, engine.BackendError("encode the listing", err)
		}
		tail.WriteString(`,"warnings":`)
		tail.WriteString(js)
		if len(warnings) > len(shown) {
			tail.WriteString(`,"warnings_total":`)
			tail.WriteString(Itoa(len(warnings)))
		}
	}
	var b strings.Builder
	b.WriteString(`{"plans":[`)
	for i := range listing.Plans {
		js := env.listEntries.encode(&listing.Plans[i])
		if i > 0 && b.Len()+len(js)+tail.Len()+128 > maxListBytes {
			next = listing.Plans[i-1].Name
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(js)
	}
	b.WriteString(`],"total":`)
	b.WriteString(Itoa(listing.Total))
	if next != "" {
		b.WriteString(`,"next_cursor":`)
		b.WriteString(jsonString(next))
	}
	b.WriteString(tail.String())
	b.WriteByte('}')
	return b.String(), nil
}

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
