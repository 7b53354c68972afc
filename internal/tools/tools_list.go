package tools

import (
	"context"
	"strings"

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

// runListPlans answers one page: at most limit plans (50 by default) after cursor, and never
// more than 16 KiB, so a folder of any size fits a model's context. Each cached summary is
// encoded once while it stays the same (listCache), so a page of unchanged plans costs little
// more than copying bytes.
func runListPlans(ctx context.Context, env *ToolEnv, a args) (any, error) {
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
