package markdown

// Link reference definitions at the start of a paragraph. They matter to block structure in
// one place only: a paragraph made of nothing else cannot become a setext heading.

// skipLinkRefDefs drops the link reference definitions ("[label]: destination 'title'") that
// open a paragraph, given as its lines (each but the last ending in "\n"), and returns the
// lines left. It reads them as goldmark does when a paragraph is underlined.
func skipLinkRefDefs(lines []string) []string {
	if len(lines) == 0 || len(lines[0]) == 0 || lines[0][0] != '[' {
		return lines
	}
	r := refReader{lines: lines}
	var removes [][2]int
	for {
		start, end, ok := r.def()
		if !ok {
			break
		}
		if start == end {
			end++
		}
		removes = append(removes, [2]int{start, end})
	}
	offset := 0
	for _, rm := range removes {
		if len(lines) == 0 {
			break
		}
		lo, hi := min(max(rm[0]-offset, 0), len(lines)), min(max(rm[1]-offset, 0), len(lines))
		lines = append(lines[:lo:lo], lines[hi:]...)
		offset = rm[1]
	}
	return lines
}

// refReader walks the lines of a paragraph; col is a byte offset in lines[line].
type refReader struct {
	lines     []string
	line, col int
}

func (r *refReader) peekLine() (string, bool) {
	if r.line >= len(r.lines) || r.col >= len(r.lines[r.line]) {
		return "", false
	}
	return r.lines[r.line][r.col:], true
}

func (r *refReader) peek() int {
	if l, ok := r.peekLine(); ok {
		return int(l[0])
	}
	return -1
}

// advance moves n bytes on; passing the last byte of a line but the last moves to the next.
func (r *refReader) advance(n int) {
	for ; n > 0 && r.line < len(r.lines); n-- {
		if r.col >= len(r.lines[r.line])-1 && r.line < len(r.lines)-1 {
			r.line, r.col = r.line+1, 0
			continue
		}
		r.col++
	}
}

func (r *refReader) nextLine() { r.line, r.col = r.line+1, 0 }

func (r *refReader) skipSpaces() (n int) {
	for {
		l, ok := r.peekLine()
		if !ok {
			return n
		}
		for i := 0; i < len(l); i++ {
			if !isSpaceByte(l[i]) {
				return n
			}
			n++
			r.advance(1)
		}
	}
}

// closure moves past the closer that ends what an opener began, across lines; a second
// opener or the end of the paragraph fails. blank reports that only white space came before.
func (r *refReader) closure(opener, closer byte) (blank, found bool) {
	blank = true
	for {
		l, ok := r.peekLine()
		if !ok {
			return false, false
		}
		for i := 0; i < len(l); i++ {
			switch c := l[i]; {
			case c == '\\' && i < len(l)-1 && isASCIIPunct(l[i+1]):
				i++
			case c == closer:
				blank = blank && isBlankStr(l[:i])
				r.advance(i + 1)
				return blank, true
			case c == opener:
				return false, false
			}
		}
		blank = blank && isBlankStr(l)
		r.nextLine()
	}
}

func (r *refReader) destination() bool {
	r.skipSpaces()
	l, _ := r.peekLine()
	if r.peek() == '<' {
		for i := 1; i < len(l); i++ {
			switch {
			case l[i] == '\\' && i < len(l)-1 && isASCIIPunct(l[i+1]):
				i++
			case l[i] == '>':
				r.advance(i + 1)
				return true
			}
		}
		return false
	}
	depth, i := 0, 0
loop:
	for i < len(l) {
		switch c := l[i]; {
		case c == '\\' && i < len(l)-1 && isASCIIPunct(l[i+1]):
			i += 2
			continue
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth < 0 {
				break loop
			}
		case isSpaceByte(c):
			break loop
		}
		i++
	}
	r.advance(i)
	return i != 0
}

// def reads one definition and returns the lines it spans, [start, end).
func (r *refReader) def() (start, end int, ok bool) {
	r.skipSpaces()
	if r.peek() != '[' {
		return 0, 0, false
	}
	start = r.line
	r.advance(1)
	if blank, found := r.closure('[', ']'); !found || blank || r.peek() != ':' {
		return 0, 0, false
	}
	r.advance(1)
	if !r.destination() {
		return 0, 0, false
	}
	l, more := r.peekLine()
	lineEnds := !more || isBlankStr(l)
	destLine := r.line
	spaces := r.skipSpaces()
	opener := r.peek()
	if opener != '"' && opener != '\'' && opener != '(' {
		return start, destLine + 1, lineEnds
	}
	if spaces == 0 {
		return 0, 0, false
	}
	r.advance(1)
	closer := byte(opener)
	if opener == '(' {
		closer = ')'
	}
	if _, found := r.closure(byte(opener), closer); !found {
		if !lineEnds {
			return 0, 0, false
		}
		r.nextLine()
		return start, destLine + 1, true
	}
	if l, more := r.peekLine(); more && !isBlankStr(l) {
		return start, destLine, lineEnds
	}
	return start, r.line + 1, true
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
