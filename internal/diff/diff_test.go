package diff

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnifiedDiffFixedCases(t *testing.T) {
	cases := []struct {
		name, a, b string
		context    int
		want       string
	}{
		{"equal", "a\nb\n", "a\nb\n", 3, ""},
		{"one line changed", "a\nb\nc\nd\ne\n", "a\nb\nC\nd\ne\n", 1,
			"@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n"},
		{"no context", "a\nb\nc\n", "a\nB\nc\n", 0,
			"@@ -2 +2 @@\n-b\n+B\n"},
		{"insert at start", "b\nc\n", "a\nb\nc\n", 3,
			"@@ -1,2 +1,3 @@\n+a\n b\n c\n"},
		{"delete at end", "a\nb\nc\n", "a\nb\n", 0,
			"@@ -3 +2,0 @@\n-c\n"},
		{"from empty", "", "a\n", 3,
			"@@ -0,0 +1 @@\n+a\n"},
		{"missing final newline", "a\nb", "a\nb\n", 3,
			"@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\nX\n3\n4\n5\n6\n7\nY\n9\n", 1,
			"@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n@@ -7,3 +7,3 @@\n 7\n-8\n+Y\n 9\n"},
		{"close changes merge", "1\n2\n3\n4\n5\n", "X\n2\n3\nY\n5\n", 1,
			"@@ -1,5 +1,5 @@\n-1\n+X\n 2\n 3\n-4\n+Y\n 5\n"},
		{"interleaved", "a\nb\nc\nd\n", "b\nx\nd\ny\n", 0,
			"@@ -1 +0,0 @@\n-a\n@@ -3 +2 @@\n-c\n+x\n@@ -4,0 +4 @@\n+y\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Unified(c.a, c.b, c.context))
		})
	}
}

// A diff applied to its old text gives the new one, also past the edit budget.
func TestDiffLinesRebuildsBothSides(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, strings.Repeat("a", i%7)+"\n")
		b = append(b, strings.Repeat("b", i%5)+"\n")
	}
	b[10] = a[10]
	for _, pair := range [][2][]string{{a, b}, {a[:40], b[:60]}, {a, a[5:]}, {nil, b[:3]}} {
		var gotA, gotB []string
		for _, e := range diffLines(pair[0], pair[1]) {
			if e.op != '+' {
				gotA = append(gotA, e.line)
			}
			if e.op != '-' {
				gotB = append(gotB, e.line)
			}
		}
		assert.Equal(t, strings.Join(pair[0], ""), strings.Join(gotA, ""))
		assert.Equal(t, strings.Join(pair[1], ""), strings.Join(gotB, ""))
	}
}
