package document

import (
	"strings"

	"github.com/einoplan/plan/internal/diff"
)

// DiffPlans renders what changed from a to b: one `field: "old" -> "new"` line per changed
// header field (title, status, author), then a unified diff of the bodies with context
// lines of context, headed by ---/+++ lines naming fromLabel and toLabel when those are not
// empty. Equal plans give "".
func DiffPlans(a, b *Plan, fromLabel, toLabel string, context int) string {
	var out strings.Builder
	for _, f := range [...]struct{ key, old, new string }{
		{"title", a.Title, b.Title}, {"status", a.Status, b.Status}, {"author", a.Author, b.Author},
	} {
		if f.old != f.new {
			out.WriteString(f.key)
			out.WriteString(": ")
			writeJSONString(&out, f.old)
			out.WriteString(" -> ")
			writeJSONString(&out, f.new)
			out.WriteByte('\n')
		}
	}
	if a.Content != b.Content {
		if fromLabel != "" || toLabel != "" {
			out.WriteString("--- " + fromLabel + "\n+++ " + toLabel + "\n")
		}
		out.WriteString(diff.Unified(a.Content, b.Content, context))
	}
	return out.String()
}
