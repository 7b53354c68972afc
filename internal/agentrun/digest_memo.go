package agentrun

import (
	"slices"
	"sync"

	"github.com/einoplan/plan/internal/document"
)

// digestMemo is the last digest rendered and the listing it was rendered from. The Store
// replaces the summary of a plan that changed and never edits one in place, so a listing of
// the same summary values, in the same order, renders the same text: comparing pointers
// spares reading every plan's summary again on each run and model call. The memo keeps the
// listing it compares against alive, so no later summary can take the address of one of it.
//
// It also keeps the lines of that digest by summary, for the same reason: after one plan
// changed, the next digest formats that plan's line only.
type digestMemo struct {
	mu         sync.Mutex
	plans      []*document.Summary
	unreadable int
	header     string // the language's digest header: one memo serves both languages in turn
	text       string
	lines      digestLines
}

// digestLines are rendered lines by the summary they show; read only once kept.
type digestLines map[*document.Summary]string

// reuse returns the kept text when it is still the digest of plans, else the kept lines
// when they are in the language of texts.
func (d *digestMemo) reuse(plans []*document.Summary, unreadable int, texts map[string]string) (string, digestLines, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.header != texts["digest.header"] {
		return "", nil, false
	}
	if d.plans == nil || d.unreadable != unreadable || !sameSummaries(d.plans, plans) {
		return "", d.lines, false
	}
	return d.text, nil, true
}

// sameSummaries reports whether a and b list the same summaries in the same order; the
// Store hands out one slice again while the listing is the same.
func sameSummaries(a, b []*document.Summary) bool {
	if len(a) == len(b) && len(a) > 0 && &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

func (d *digestMemo) keep(plans []*document.Summary, unreadable int, texts map[string]string, text string, lines digestLines) {
	d.mu.Lock()
	d.plans, d.unreadable, d.header, d.text, d.lines = plans, unreadable, texts["digest.header"], text, lines
	d.mu.Unlock()
}
