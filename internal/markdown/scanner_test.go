package markdown

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func items(body string) []Item {
	var got []Item
	Items(body, " x~", func(it Item) bool {
		got = append(got, it)
		return true
	})
	return got
}

// Task items are found in lists, nested lists and blockquotes, with their depth, line and
// the offsets of their marker; nothing in code blocks, HTML blocks or other markers counts.
func TestItemsFollowTheBlockStructure(t *testing.T) {
	body := "# Plan\n\n- [ ] one\n  - [x] nested\n> 1. [~] quoted\n\n```\n- [ ] in code\n```\n<div>\n- [ ] in html\n</div>\n\n- [?] unknown marker\n- [x]\n"
	got := items(body)
	if assert.Len(t, got, 4) {
		assert.Equal(t, Item{Number: 1, Marker: ' ', Text: "one", Depth: 0, Line: 2, MarkerOffset: 11, End: 17}, got[0])
		assert.Equal(t, "nested", got[1].Text)
		assert.Equal(t, 1, got[1].Depth)
		assert.Equal(t, byte('~'), got[2].Marker)
		assert.Equal(t, 4, got[2].Line)
		assert.Equal(t, "", got[3].Text, "a marker at the end of the line is an item with no text")
		for _, it := range got {
			assert.Equal(t, it.Marker, body[it.MarkerOffset])
		}
	}
}

// Items stops when yield returns false and counts only what it passed on.
func TestItemsStopsWhenAsked(t *testing.T) {
	n := Items("- [ ] a\n- [ ] b\n- [ ] c\n", " ", func(it Item) bool { return it.Number < 2 })
	assert.Equal(t, 2, n)
}

// A setext underline turns a would-be item paragraph into a heading, which FirstHeading
// reads; ATX headings drop their closing hashes; code hides headings.
func TestFirstHeading(t *testing.T) {
	for _, c := range []struct {
		body, want string
		ok         bool
	}{
		{"# Release 2.0 ##\n", "Release 2.0", true},
		{"Release\nplan\n===\n", "Release plan", true},
		{"```\n# not a heading\n```\n## Real\n", "Real", true},
		{"<!--\n# hidden\n-->\n", "", false},
		{"#\n", "", true},
		{"no heading\n", "", false},
	} {
		got, ok := FirstHeading(c.body)
		assert.Equal(t, c.want, got, c.body)
		assert.Equal(t, c.ok, ok, c.body)
	}
}
