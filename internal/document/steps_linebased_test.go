package document

import (
	"strings"
	"testing"
)

// This file keeps the line-based step reader that ParseSteps used before it followed the
// CommonMark block structure, only to measure the two side by side in one benchmark run.

// parseStepsLineBased is ParseSteps on the line-based reader.
func parseStepsLineBased(body string) []Step {
	var steps []Step
	scanStepsLineBased(body, func(it ScannedStep) bool {
		steps = append(steps, it.Step)
		return true
	})
	return steps
}

func BenchmarkParseStepsLineBased(b *testing.B) { benchParse(b, parseStepsLineBased) }

// scanStepsLineBased calls yield with each step of body in document order until yield returns
// false, and returns the number of steps it passed to yield. It walks the body line by
// line, tracking fenced code blocks and the indentation of the enclosing steps.
func scanStepsLineBased(body string, yield func(ScannedStep) bool) (count int) {
	var fenceChar byte // '`' or '~' while inside a fenced code block, else 0
	var fenceLen int
	// indents holds the indentation widths of the open enclosing steps, outermost first.
	var inline [16]int
	indents := inline[:0]

	pos := 0
	for line := 0; pos <= len(body); line++ {
		start, end := pos, len(body)
		if i := strings.IndexByte(body[start:], '\n'); i >= 0 {
			end = start + i
		}
		pos = end + 1
		if end > start && body[end-1] == '\r' {
			end--
		}
		content := body[start:end]

		// Indentation: spaces and tabs, tabs advancing to the next multiple of 4 columns.
		width, i := 0, 0
		for ; i < len(content); i++ {
			if content[i] == ' ' {
				width++
			} else if content[i] == '\t' {
				width += 4 - width%4
			} else {
				break
			}
		}
		rest := content[i:]

		if fenceChar != 0 {
			if isFenceCloseLineBased(rest, fenceChar, fenceLen) {
				fenceChar = 0
			}
			continue
		}
		if m, textAt := checklistMarkerLineBased(rest); m >= 0 {
			for len(indents) > 0 && indents[len(indents)-1] >= width {
				indents = indents[:len(indents)-1]
			}
			depth := len(indents)
			indents = append(indents, width)
			count++
			marker := start + i + m
			text := ""
			if textAt >= 0 {
				text = body[start+i+textAt : end]
			}
			it := ScannedStep{
				Step: Step{
					Number: count,
					State:  StateOf(body[marker]),
					Text:   text,
					Depth:  depth,
					Line:   line,
				},
				Marker: marker,
				End:    end,
			}
			if !yield(it) {
				return count
			}
			continue
		}
		if rest == "" {
			continue
		}
		if c, n := fenceOpenLineBased(rest); n > 0 {
			fenceChar, fenceLen = c, n
		}
		// Any other non-blank line closes the steps indented at least as far as it is.
		for len(indents) > 0 && indents[len(indents)-1] >= width {
			indents = indents[:len(indents)-1]
		}
	}
	return count
}

// checklistMarkerLineBased reports where the marker character of a checklist item is in s, a line's
// content after its indentation, and where its text starts (-1 for none). m is -1 when s is
// not a checklist item.
func checklistMarkerLineBased(s string) (m, textAt int) {
	i := 0
	switch {
	case len(s) > 0 && (s[0] == '-' || s[0] == '*' || s[0] == '+'):
		i = 1
	case len(s) > 0 && s[0] >= '0' && s[0] <= '9':
		for i < len(s) && i < 10 && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i > 9 || i >= len(s) || (s[i] != '.' && s[i] != ')') {
			return -1, -1
		}
		i++
	default:
		return -1, -1
	}
	// At least one space or tab between the list marker and "[".
	j := i
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j == i || len(s) < j+3 || s[j] != '[' || s[j+2] != ']' || StateOf(s[j+1]) == "" {
		return -1, -1
	}
	switch {
	case len(s) == j+3:
		return j + 1, -1
	case s[j+3] == ' ':
		return j + 1, j + 4
	}
	return -1, -1
}

// fenceOpenLineBased reports the character and length of the fence s opens, or n 0 if it opens none.
// A backtick fence's info string may not contain a backtick.
func fenceOpenLineBased(s string) (c byte, n int) {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return 0, 0
	}
	c = s[0]
	for n < len(s) && s[n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.IndexByte(s[n:], '`') >= 0) {
		return 0, 0
	}
	return c, n
}

// isFenceCloseLineBased reports whether s closes a fence of at least n characters c: a run of c at
// least n long followed only by spaces and tabs.
func isFenceCloseLineBased(s string, c byte, n int) bool {
	k := 0
	for k < len(s) && s[k] == c {
		k++
	}
	if k < n {
		return false
	}
	for ; k < len(s); k++ {
		if s[k] != ' ' && s[k] != '\t' {
			return false
		}
	}
	return true
}
