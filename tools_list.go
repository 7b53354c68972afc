package plan

import (
	"context"
	"strings"
)

// Bounds of one list_plans page.
const (
	defaultListLimit = 50
	maxListLimit     = 200
	maxListBytes     = 16 << 10
	maxListWarnings  = 20
)

type listWarning struct {
	Name    string `json:"name"`
	Code    Code   `json:"code"`
	Message string `json:"message"`
}

// runListPlans answers one page: at most limit plans (50 by default) after cursor, and never
// more than 16 KiB, so a folder of any size fits a model's context. Each cached summary is
// encoded once, when it is cached, so a page of unchanged plans costs little more than
// copying bytes.
func runListPlans(ctx context.Context, env *toolEnv, a args) (any, error) {
	f := a.fields()
	limit, cursor, status := f.integer(pLimit), f.str(pCursor), f.str(pStatusFilter)
	if f.err != nil {
		return nil, f.err
	}
	opts := ListOptions{Limit: defaultListLimit, Cursor: cursor, Status: status}
	if limit != nil {
		if *limit < 1 || *limit > maxListLimit {
			return nil, fail(Error{Code: CodeInvalidArgument, Reason: reasonListLimit, Field: pLimit.name, Limit: maxListLimit})
		}
		opts.Limit = int(*limit)
	}
	entries, warnings, err := env.store.list(ctx)
	if err != nil {
		return nil, err
	}
	page := pageOf(entries, opts)
	// Warnings are encoded first, so the plans get the rest of the page's bytes.
	var tail strings.Builder
	if cursor == "" && len(warnings) > 0 {
		shown := make([]listWarning, 0, min(len(warnings), maxListWarnings))
		for _, w := range warnings[:min(len(warnings), maxListWarnings)] {
			msg := w.Message
			if w.cause != nil {
				msg = env.errorMessage(w.cause)
			}
			shown = append(shown, listWarning{Name: w.Name, Code: w.Code, Message: truncateUTF8(msg, 300)})
		}
		js, err := resultAPI.MarshalToString(shown)
		if err != nil {
			return nil, backendError("encode the listing", err)
		}
		tail.WriteString(`,"warnings":`)
		tail.WriteString(js)
		if len(warnings) > len(shown) {
			tail.WriteString(`,"warnings_total":`)
			tail.WriteString(itoa(len(warnings)))
		}
	}
	var b strings.Builder
	b.WriteString(`{"plans":[`)
	for i, c := range page.entries {
		js := c.json
		if js == "" {
			js = encodeListEntry(&c.summary)
		}
		if i > 0 && b.Len()+len(js)+tail.Len()+128 > maxListBytes {
			page.next = page.entries[i-1].summary.Name
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(js)
	}
	b.WriteString(`],"total":`)
	b.WriteString(itoa(page.total))
	if page.next != "" {
		b.WriteString(`,"next_cursor":`)
		b.WriteString(jsonString(page.next))
	}
	b.WriteString(tail.String())
	b.WriteByte('}')
	return b.String(), nil
}
