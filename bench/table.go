package main

import (
	"fmt"
	"strings"
)

// table is one Markdown table with a heading and notes printed under it.
type table struct {
	title  string
	header []string
	rows   [][]string
	notes  []string
}

func newTable(title string, header ...string) *table {
	return &table{title: title, header: header}
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) note(format string, a ...any) { t.notes = append(t.notes, fmt.Sprintf(format, a...)) }

// check reports the first way t is not a well-formed table: no title, fewer than two
// columns, no rows, a row of the wrong width, or an empty cell.
func (t *table) check() error {
	if strings.TrimSpace(t.title) == "" {
		return fmt.Errorf("table without a title")
	}
	if len(t.header) < 2 {
		return fmt.Errorf("%s: %d columns", t.title, len(t.header))
	}
	if len(t.rows) == 0 {
		return fmt.Errorf("%s: no rows", t.title)
	}
	for i, r := range t.rows {
		if len(r) != len(t.header) {
			return fmt.Errorf("%s: row %d has %d cells, want %d", t.title, i+1, len(r), len(t.header))
		}
		for j, c := range r {
			if strings.TrimSpace(c) == "" {
				return fmt.Errorf("%s: row %d, column %q is empty", t.title, i+1, t.header[j])
			}
		}
	}
	return nil
}

// numeric reports whether a cell is right-aligned: it starts with a digit, a sign or "~".
func numeric(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c >= '0' && c <= '9' || c == '-' && len(s) > 1 || c == '+' || c == '~'
}

// markdown renders t with padded columns; columns whose cells are all numbers are
// right-aligned.
func (t *table) markdown() string {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	width := make([]int, len(t.header))
	right := make([]bool, len(t.header))
	for j, h := range t.header {
		width[j] = max(3, runeLen(esc(h)))
		right[j] = len(t.rows) > 0
	}
	for _, r := range t.rows {
		for j, c := range r {
			if j >= len(width) {
				continue
			}
			width[j] = max(width[j], runeLen(esc(c)))
			if !numeric(c) && c != "—" {
				right[j] = false
			}
		}
	}
	pad := func(s string, j int) string {
		fill := strings.Repeat(" ", width[j]-runeLen(s))
		if right[j] {
			return fill + s
		}
		return s + fill
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", t.title)
	line := func(cells []string) {
		b.WriteString("|")
		for j := range t.header {
			c := ""
			if j < len(cells) {
				c = esc(cells[j])
			}
			b.WriteString(" " + pad(c, j) + " |")
		}
		b.WriteString("\n")
	}
	line(t.header)
	b.WriteString("|")
	for j := range t.header {
		if right[j] {
			b.WriteString(" " + strings.Repeat("-", width[j]-1) + ": |")
		} else {
			b.WriteString(" " + strings.Repeat("-", width[j]) + " |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		line(r)
	}
	if len(t.notes) > 0 {
		b.WriteString("\n")
		for _, n := range t.notes {
			b.WriteString("- " + n + "\n")
		}
	}
	return b.String()
}

func runeLen(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

// Number formatting.

func fmtInt(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// fmtNs renders nanoseconds per operation with three significant digits.
func fmtNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return sig3(ns/1e9) + " s"
	case ns >= 1e6:
		return sig3(ns/1e6) + " ms"
	case ns >= 1e3:
		return sig3(ns/1e3) + " µs"
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// sig3 renders v with about three significant digits and no exponent.
func sig3(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func fmtRatio(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f×", r)
	}
	if r >= 10 {
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

func fmtPct(p float64) string { return fmt.Sprintf("%.1f%%", p) }
