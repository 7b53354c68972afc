package commonmark

import (
	"math/rand/v2"
	"strings"
)

// generateCorpus returns n Markdown documents built from seed. Each document is a run of
// lines, each line a random stack of container prefixes (blockquotes, bullet and ordered
// list items, indentation with spaces and tabs) in front of a random leaf: task items with
// all five markers, fences of both kinds at indents 0-5 opened and closed, indented code,
// HTML blocks and comments, ATX and setext headings, thematic breaks, prose and blank lines.
// Some documents use CRLF line endings.
func generateCorpus(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, seed*7919+1))
	docs := make([]string, n)
	for i := range docs {
		docs[i] = generateDoc(r)
	}
	return docs
}

var (
	prefixes = []string{"> ", ">", "- ", "* ", "+ ", "1. ", "2) ", "10. ", "  ", "   ", "    ", "\t", " \t", "-\t", "1.  ", ">\t"}
	markerCh = []string{" ", "x", "X", "~", "!", "-"}
	words    = []string{"build", "test", "ship it", "déployer 🚀", "check [x] later", "a `code` span", "<b>bold</b>", "*em*", "#tag", "x  "}
	leaves   = []func(r *rand.Rand) string{
		func(r *rand.Rand) string { return pick(r, []string{"- ", "* ", "+ ", "1. ", "1) ", "3. "}) + task(r) },
		func(r *rand.Rand) string { return pick(r, []string{"- ", "* ", "1. "}) + task(r) },
		func(r *rand.Rand) string { return task(r) },
		func(r *rand.Rand) string { return nestedTask(r) },
		func(r *rand.Rand) string { return nestedTask(r) },
		func(r *rand.Rand) string {
			return indent(r) + pick(r, []string{"```", "~~~", "````", "```go", "~~~ md", "``` a`b"})
		},
		func(r *rand.Rand) string { return indent(r) + pick(r, []string{"```", "~~~", "````", "~~~~"}) },
		func(r *rand.Rand) string {
			return pick(r, []string{"    ", "\t", "     "}) + pick(r, []string{"- [ ] code", "code", "# not a heading"})
		},
		func(r *rand.Rand) string {
			return indent(r) + pick(r, []string{"<!--", "-->", "<!-- c -->", "<div>", "</div>", "<pre>", "</pre>", "<?php", "?>", "<!DOCTYPE html>", "<![CDATA[", "]]>", "<span class=\"a\">", "<custom-tag>", "</span>", "<div", "<a href='x'>", "<table><tr>"})
		},
		func(r *rand.Rand) string {
			return indent(r) + strings.Repeat("#", 1+r.IntN(7)) + pick(r, []string{" Title", " ", "", "Title", " a #", " ##", "\tTabbed"})
		},
		func(r *rand.Rand) string {
			return indent(r) + pick(r, []string{"===", "---", "- - -", "***", "___", "==", "--", " = =", "* * *"})
		},
		func(r *rand.Rand) string { return pick(r, words) + " " + pick(r, words) },
		func(r *rand.Rand) string { return "" },
		func(r *rand.Rand) string { return pick(r, []string{" ", "\t", "  "}) },
		func(r *rand.Rand) string {
			return pick(r, []string{"[a]: /url", "[x]: /u 'title'", "-", "1.", "*", "[ ]", "[x]text"})
		},
		func(r *rand.Rand) string {
			return pick(r, []string{"[a]:", "[b]: <c d>", "'t'", "(t)", "\"t", "[x]: /u \"t\" x", "[ ]: /u", "[a\\]]: /u", "/url 't'"})
		},
		func(r *rand.Rand) string {
			return indent(r) + pick(r, []string{"<a b='c' d>", "</a b>", "<x/>", "<x-y z=1 />", "</ div>", "<DIV>", "<script>", "</script>", "<style", "<textarea>x</textarea>", "<!-->", "<?>", "<!a>", "<a\tb>"})
		},
		func(r *rand.Rand) string {
			return pick(r, []string{"a\rb", "\r", "- [ ]\r", "\f- [ ] x", "\v", "#\r", "```\r"})
		},
	}
)

func pick(r *rand.Rand, from []string) string { return from[r.IntN(len(from))] }

func indent(r *rand.Rand) string {
	return pick(r, []string{"", "", "", " ", "  ", "   ", "    ", "     ", "\t", " \t"})
}

// nestedTask is a task item indented to sit inside an item above it.
func nestedTask(r *rand.Rand) string {
	return pick(r, []string{"  ", "   ", "    ", "\t", "  \t", "      ", "> ", ">   "}) + pick(r, []string{"- ", "* ", "1. ", "1) "}) + task(r)
}

func task(r *rand.Rand) string {
	s := "[" + pick(r, markerCh) + "]"
	switch r.IntN(8) {
	case 0:
		return s
	case 1:
		return s + pick(r, []string{"\t", "x", "  "})
	}
	return s + " " + pick(r, words)
}

func generateDoc(r *rand.Rand) string {
	var b strings.Builder
	nl := "\n"
	if r.IntN(5) == 0 {
		nl = "\r\n"
	}
	if r.IntN(3) == 0 {
		return generatePlan(r, nl)
	}
	lines := 1 + r.IntN(14)
	for range lines {
		for range r.IntN(4) {
			if r.IntN(3) == 0 {
				b.WriteString(pick(r, prefixes))
			} else {
				b.WriteString(pick(r, prefixes[:8]))
			}
		}
		b.WriteString(leaves[r.IntN(len(leaves))](r))
		b.WriteString(nl)
	}
	s := b.String()
	if r.IntN(4) == 0 {
		s = strings.TrimSuffix(s, nl)
	}
	return s
}

// generatePlan returns a checklist that moves up and down levels of nesting, in a blockquote
// or not, with now and then another line from the leaves in between.
func generatePlan(r *rand.Rand, nl string) string {
	var b strings.Builder
	quote := pick(r, []string{"", "", "> ", ">"})
	unit := pick(r, []string{"  ", "    ", "\t", "   "})
	depth := 0
	for range 2 + r.IntN(12) {
		b.WriteString(quote)
		if r.IntN(5) == 0 {
			b.WriteString(strings.Repeat(unit, depth))
			b.WriteString(leaves[r.IntN(len(leaves))](r))
			b.WriteString(nl)
			continue
		}
		depth = max(0, min(depth+r.IntN(3)-1, 5))
		b.WriteString(strings.Repeat(unit, depth))
		b.WriteString(pick(r, []string{"- ", "- ", "* ", "1. ", "1) ", "2. "}))
		b.WriteString(task(r))
		b.WriteString(nl)
	}
	return b.String()
}
