package main

import (
	"bytes"
	"io"
	"strings"
	"unicode"
)

// columns writes lines of tab-separated cells as aligned columns when flushed, as
// text/tabwriter does with padding 2 (each cell but a line's last padded to its column's
// widest cell plus two spaces), measuring cells as a terminal shows them: a Chinese
// character takes two columns, so Chinese headers and titles line up too.
type columns struct {
	out io.Writer
	buf bytes.Buffer
}

func newColumns(out io.Writer) *columns { return &columns{out: out} }

func (c *columns) Write(p []byte) (int, error) { return c.buf.Write(p) }

// Flush writes the lines written so far, aligned.
func (c *columns) Flush() error {
	text := c.buf.String()
	c.buf.Reset()
	lines := strings.SplitAfter(text, "\n")
	rows := make([][]string, len(lines))
	var widths []int
	for i, line := range lines {
		rows[i] = strings.Split(line, "\t")
		for j, cell := range rows[i][:len(rows[i])-1] {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], displayWidth(cell))
		}
	}
	var out strings.Builder
	for _, row := range rows {
		for j, cell := range row[:len(row)-1] {
			out.WriteString(cell)
			out.WriteString(strings.Repeat(" ", widths[j]-displayWidth(cell)+2))
		}
		out.WriteString(row[len(row)-1])
	}
	_, err := io.WriteString(c.out, out.String())
	return err
}

// displayWidth is how many columns a terminal gives s: two for a wide East Asian
// character, none for a combining mark, one for any other.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
		case wide(r):
			n += 2
		default:
			n++
		}
	}
	return n
}

// wide reports whether r is a wide or full-width East Asian character.
func wide(r rune) bool {
	return r >= 0x1100 && r <= 0x115F || r >= 0x2E80 && r <= 0xA4CF && r != 0x303F || r >= 0xAC00 && r <= 0xD7A3 ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0xFE30 && r <= 0xFE4F || r >= 0xFF00 && r <= 0xFF60 || r >= 0xFFE0 && r <= 0xFFE6 ||
		r >= 0x20000 && r <= 0x3FFFD
}

// clipColumns shortens s to at most n columns of a terminal, ending it with "…" when cut.
func clipColumns(s string, n int) string {
	if displayWidth(s) <= n {
		return s
	}
	w := 0
	for i, r := range s {
		rw := displayWidth(string(r))
		if w+rw > n-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s
}
