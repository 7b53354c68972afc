// Package markdown reads the block structure of a Markdown body the way CommonMark does, as
// far as two questions need it: which list items open with a task marker, and which heading comes
// first. Code blocks, HTML blocks and comments hide everything inside them; blockquotes,
// nested lists, lazy continuation lines and tab stops of 4 columns are followed. Where
// CommonMark leaves room, it behaves as github.com/yuin/goldmark does, which the commonmark
// module's differential test checks on generated and fuzzed documents. Its time grows
// linearly with the body, and no input makes it fail.
package markdown

import "strings"

// mdKind is the kind of an open block.
type mdKind uint8

const (
	mdQuote mdKind = iota + 1
	mdList
	mdItem
	mdPara
	mdFence
	mdCode // indented code
	mdHTML
	mdLine // a one-line block: ATX or setext heading, thematic break, or a dropped paragraph
)

// mdBlock is one open block. Its parent is the block below it on the stack once a line has
// been read; while a line is read, parent says where a block opened on that line belongs.
type mdBlock struct {
	kind   mdKind
	parent int // index of the enclosing block, -1 for the document
	// firstOther is the index of the outermost block on the way from the document to this
	// one that is neither a list nor an item, or -1: a blank line goes on below it.
	firstOther int

	// lists
	marker       byte // bullet character, or "." / ")" for an ordered list
	ordered      bool
	lastOffset   int  // content offset of the list's last item
	lastHasChild bool // the list's last item has a child block

	// items
	offset   int  // columns of the item's content, from where its line was read
	hasChild bool // the item has a child block
	step     bool // the item is a step: its first child is a paragraph opening with a marker

	// fences and HTML blocks
	fence    byte
	fenceLen int
	html     int  // HTML block kind, 1 to 7
	ended    bool // an HTML block of kind 1 to 5 whose first line holds its end condition

	// paragraphs
	cand bool // first child of an item, starting with a marker
	mark int  // body offset of the marker character
	end  int  // body offset where the marker's line content ends
	line int  // line index of the paragraph's first line
}

// scanner reads a body line by line. Each line is seen as a view: pad virtual spaces (what
// is left of a tab partly used by a container) followed by ln[pos:].
type scanner struct {
	body  string
	stack []mdBlock

	ln      string // the current line without its "\n"
	lnStart int    // body offset of ln
	lineNo  int
	hasNL   bool // ln was followed by "\n"
	pos     int  // bytes of ln consumed
	bcol    int  // column of ln[pos]
	pad     int  // virtual spaces before ln[pos]

	emptyBlank bool // an empty list item was followed by a blank line
	skipList   bool // a list item just closed for a sibling: the sibling joins its list
	tbLine     int  // line whose thematic-break test a list has done, or -1

	onStep    func(Item) bool        // nil when steps are not wanted
	markers   string                 // the characters a task marker may hold
	onHeading func(text string) bool // nil when headings are not wanted
	steps     int
	stop      bool
	lines     []int // body offsets (start, end) of the open paragraph's lines
	inline    [16]mdBlock
}

func (s *scanner) run() {
	s.stack = s.inline[:0]
	s.tbLine = -1
	body := s.body
	for start := 0; start < len(body) && !s.stop; s.lineNo++ {
		end := strings.IndexByte(body[start:], '\n')
		s.hasNL = end >= 0
		if end < 0 {
			end = len(body)
		} else {
			end += start
		}
		s.ln, s.lnStart = body[start:end], start
		s.pos, s.bcol, s.pad = 0, 0, 0
		s.readLine()
		start = end + 1
	}
	for i := len(s.stack) - 1; i >= 0 && !s.stop; i-- {
		s.close(i)
	}
}

// readLine matches the open blocks against the line, opens new ones, and closes those the
// line ends.
func (s *scanner) readLine() {
	n := len(s.stack)
	if n == 0 {
		s.open(-1)
		return
	}
	start := 0
	if isBlankStr(s.ln) {
		start = s.skipForBlank()
	}
	for i := start; i < n; i++ {
		b := &s.stack[i]
		if b.kind != mdPara {
			ok, children := s.cont(i, s.blank())
			if ok {
				if i == n-1 {
					if children {
						s.open(i)
					}
					return
				}
				continue
			}
		}
		// Block i does not go on: the line may open blocks in its parent, or continue the
		// open paragraph lazily; otherwise blocks i and above are closed.
		if s.open(i-1) != mdParaContinued {
			for k := n - 1; k >= i && !s.stop; k-- {
				s.close(k)
			}
			s.stack = append(s.stack[:i], s.stack[n:]...)
			for k := i; k < len(s.stack); k++ {
				s.stack[k].parent = k - 1
				if s.stack[k].firstOther >= n {
					s.stack[k].firstOther -= n - i
				}
			}
		}
		return
	}
}

const (
	mdNothing = iota
	mdOpened
	mdParaContinued
)

// open opens the blocks the rest of the line starts inside block parent (-1: the document),
// or continues the open paragraph with it.
func (s *scanner) open(parent int) int {
	result := mdNothing
	continuable := len(s.stack) > 0 && s.stack[len(s.stack)-1].kind == mdPara
retry:
	if s.stop {
		return result
	}
	w, k := s.indent()
	if k < s.viewLen() {
		parsers := mdParsers(s.viewAt(k))
		for _, p := range parsers {
			if continuable && result == mdNothing && (p == mdpCode || p == mdpPara) {
				continue
			}
			if w > 3 && p != mdpCode {
				continue
			}
			switch p {
			case mdpSetext:
				switch s.openSetext(parent) {
				case mdOpened:
					return mdOpened
				case mdNothing:
				default: // the paragraph was only link reference definitions
					continuable = false
					goto retry
				}
			case mdpBreak:
				if s.isBreakFrom(k) {
					s.push(mdBlock{kind: mdLine}, parent)
					return mdOpened
				}
			case mdpList:
				if next, ok := s.openList(parent); ok {
					parent, result = next, mdOpened
					goto retry
				}
			case mdpItem:
				if next, ok, children := s.openItem(parent); ok {
					result = mdOpened
					if !children {
						return result
					}
					parent = next
					goto retry
				}
			case mdpCode:
				if w >= 4 && !s.blank() {
					s.push(mdBlock{kind: mdCode}, parent)
					return mdOpened
				}
			case mdpATX:
				if s.offsetValid(w) && s.openATX(parent, k) {
					return mdOpened
				}
			case mdpFence:
				if s.offsetValid(w) && s.openFence(parent, k) {
					return mdOpened
				}
			case mdpQuote:
				if s.quote() {
					parent = s.push(mdBlock{kind: mdQuote}, parent)
					result = mdOpened
					goto retry
				}
			case mdpHTML:
				if s.openHTML(parent, k) {
					return mdOpened
				}
			case mdpPara:
				if !s.blank() {
					s.openPara(parent)
					return mdOpened
				}
			}
		}
	}
	if result == mdNothing && continuable && !s.blank() {
		s.addParaLine()
		return mdParaContinued
	}
	return result
}

// The block starts, in the order they are tried.
const (
	mdpSetext = iota
	mdpBreak
	mdpList
	mdpItem
	mdpCode
	mdpATX
	mdpFence
	mdpQuote
	mdpHTML
	mdpPara
)

var (
	mdpDash  = []int{mdpSetext, mdpBreak, mdpList, mdpItem, mdpCode, mdpPara}
	mdpEq    = []int{mdpSetext, mdpCode, mdpPara}
	mdpStar  = []int{mdpBreak, mdpList, mdpItem, mdpCode, mdpPara}
	mdpUnder = []int{mdpBreak, mdpCode, mdpPara}
	mdpNum   = []int{mdpList, mdpItem, mdpCode, mdpPara}
	mdpHash  = []int{mdpATX, mdpCode, mdpPara}
	mdpTick  = []int{mdpFence, mdpCode, mdpPara}
	mdpGt    = []int{mdpQuote, mdpCode, mdpPara}
	mdpLt    = []int{mdpHTML, mdpCode, mdpPara}
	mdpOther = []int{mdpCode, mdpPara}
)

func mdParsers(c byte) []int {
	switch {
	case c == '-':
		return mdpDash
	case c == '=':
		return mdpEq
	case c == '*':
		return mdpStar
	case c == '_':
		return mdpUnder
	case c == '+' || (c >= '0' && c <= '9'):
		return mdpNum
	case c == '#':
		return mdpHash
	case c == '`' || c == '~':
		return mdpTick
	case c == '>':
		return mdpGt
	case c == '<':
		return mdpLt
	}
	return mdpOther
}

// skipForBlank returns the index of the first open block a blank line needs to look at:
// lists and items below it all go on with a blank line, so a blank line costs the same at
// any depth of nesting.
func (s *scanner) skipForBlank() int {
	n := len(s.stack)
	top := &s.stack[n-1]
	j := top.firstOther
	if j < 0 {
		j = n - 1
	}
	if j > 0 {
		// Of the lists skipped, only one right below an empty last item can have one.
		if j == n-1 && top.kind == mdItem && !top.hasChild {
			s.emptyBlank = true
		}
		s.toEOL()
	}
	return j
}

// push adds b as a child of block parent and returns its index.
func (s *scanner) push(b mdBlock, parent int) int {
	b.parent = parent
	b.firstOther = -1
	if parent >= 0 {
		b.firstOther = s.stack[parent].firstOther
	}
	if b.firstOther < 0 && b.kind != mdList && b.kind != mdItem {
		b.firstOther = len(s.stack)
	}
	s.markChild(parent)
	s.stack = append(s.stack, b)
	return len(s.stack) - 1
}

func (s *scanner) markChild(parent int) {
	if parent >= 0 && s.stack[parent].kind == mdItem {
		s.stack[parent].hasChild = true
		s.stack[s.stack[parent].parent].lastHasChild = true
	}
}

// cont reports whether block i goes on with the line, consuming its prefix, and whether
// the line may open children in it.
func (s *scanner) cont(i int, blank bool) (ok, children bool) {
	b := &s.stack[i]
	switch b.kind {
	case mdQuote:
		return s.quote(), true
	case mdList:
		return s.contList(b, blank), true
	case mdItem:
		return s.contItem(b, &s.stack[b.parent], blank), true
	case mdFence:
		if w, k := s.indent(); w < 4 {
			n := k
			for n < s.viewLen() && s.viewAt(n) == b.fence {
				n++
			}
			if n-k >= b.fenceLen && isBlankStr(s.ln[s.pos+n-s.pad:]) {
				s.toEOL()
				return false, false
			}
		}
		s.toEOL()
		return true, false
	case mdCode:
		if w, _ := s.indent(); w >= 4 || blank {
			s.toEOL()
			return true, false
		}
		return false, false
	case mdHTML:
		switch {
		case b.html >= 6:
			if blank {
				return false, false
			}
		case b.ended:
			return false, false
		case htmlEnds(b.html, s.ln[s.pos:]):
			s.toEOL()
			return false, false
		}
		s.toEOL()
		return true, false
	}
	return false, false
}

func (s *scanner) contList(l *mdBlock, blank bool) bool {
	if blank {
		if !l.lastHasChild {
			s.emptyBlank = true
		}
		return true
	}
	offset, lastEmpty := l.lastOffset, !l.lastHasChild
	w, _ := s.indent()
	if w < offset || lastEmpty {
		if w < 4 {
			if m, ok := s.listMarker(); ok && m.indent-offset < 4 {
				if m.marker != l.marker || m.ordered != l.ordered {
					return false
				}
				if s.tbLine != s.lineNo {
					s.tbLine = s.lineNo
					if s.isBreakFrom(m.end-1) && !s.setextAfterPara(m.end-1, '-') {
						return false
					}
				}
				return true
			}
		}
		if !lastEmpty {
			return false
		}
	}
	if lastEmpty && w < offset {
		return false
	}
	return !s.emptyBlank
}

func (s *scanner) contItem(it, l *mdBlock, blank bool) bool {
	if blank {
		s.toEOL()
		return true
	}
	offset := l.lastOffset
	empty := !it.hasChild && s.emptyBlank
	w, _ := s.indent()
	if (empty || w < offset) && w < 4 {
		if _, ok := s.listMarker(); ok {
			s.skipList = true
			return false
		}
		if !empty {
			return false
		}
	}
	s.advanceCols(offset)
	return true
}

// quote consumes a blockquote marker and the space or tab column after it.
func (s *scanner) quote() bool {
	w, k := s.indent()
	if w > 3 || k >= s.viewLen() || s.viewAt(k) != '>' {
		return false
	}
	s.advance(k + 1)
	if s.pos < len(s.ln) {
		switch s.ln[s.pos] {
		case ' ':
			s.advance(1)
		case '\t':
			width := 4 - s.bcol%4
			s.advance(1)
			s.setPad(width - 1)
		}
	}
	return true
}

// listMarker is a list item's start in the view: indent spaces, the marker ending at view
// index end, and whether nothing but white space follows.
type listMarker struct {
	indent  int
	end     int
	marker  byte
	ordered bool
	start   int
	empty   bool
}

func (s *scanner) listMarker() (m listMarker, ok bool) {
	n := s.viewLen()
	i := 0
	for i < n && s.viewAt(i) == ' ' {
		i++
	}
	if i > 3 || i >= n {
		return m, false
	}
	m.indent = i
	switch c := s.viewAt(i); {
	case c == '-' || c == '*' || c == '+':
		m.marker = c
		i++
	default:
		j := i
		for i < n && i-j < 10 && s.viewAt(i) >= '0' && s.viewAt(i) <= '9' {
			m.start = m.start*10 + int(s.viewAt(i)-'0')
			i++
		}
		if i == j || i-j > 9 || i >= n || (s.viewAt(i) != '.' && s.viewAt(i) != ')') {
			return m, false
		}
		m.marker, m.ordered = s.viewAt(i), true
		i++
	}
	m.end = i
	if i < n && s.viewAt(i) != ' ' && s.viewAt(i) != '\t' {
		return m, false
	}
	m.empty = isBlankStr(s.ln[s.pos+i-s.pad:])
	return m, true
}

func (s *scanner) openList(parent int) (int, bool) {
	var top mdBlock
	if len(s.stack) > 0 {
		top = s.stack[len(s.stack)-1]
	}
	if top.kind == mdList || s.skipList {
		s.skipList = false
		return 0, false
	}
	m, ok := s.listMarker()
	if !ok {
		return 0, false
	}
	if top.kind == mdPara && top.parent == parent && (m.ordered && m.start != 1 || m.empty) {
		return 0, false
	}
	s.emptyBlank = false
	return s.push(mdBlock{kind: mdList, marker: m.marker, ordered: m.ordered}, parent), true
}

func (s *scanner) openItem(parent int) (next int, ok, children bool) {
	if parent < 0 || s.stack[parent].kind != mdList {
		return 0, false, false
	}
	l := &s.stack[parent]
	m, ok := s.listMarker()
	if !ok || m.indent-l.lastOffset > 3 {
		return 0, false, false
	}
	s.emptyBlank = false
	// The content offset counts tab stops from the start of the view.
	off := 1
	if !m.empty {
		off = 0
		for i := m.end; i < s.viewLen(); i++ {
			c := s.viewAt(i)
			if c == ' ' {
				off++
			} else if c == '\t' {
				off += 4 - (m.end+off)%4
			} else {
				break
			}
		}
		if off > 4 {
			off = 1
		}
	}
	l.lastOffset, l.lastHasChild = m.end+off, false
	next = s.push(mdBlock{kind: mdItem, offset: m.end + off}, parent)
	if m.empty {
		s.toEOL()
		return next, true, false
	}
	w, i := 0, m.end
	for ; i < s.viewLen() && w < off; i++ {
		if s.viewAt(i) == '\t' {
			w += 4 - (m.end+w)%4
		} else {
			w++
		}
	}
	s.advance(i)
	s.setPad(w - off)
	return next, true, true
}

func (s *scanner) openATX(parent, k int) bool {
	n := s.viewLen()
	i := k
	for i < n && s.viewAt(i) == '#' {
		i++
	}
	if level := i - k; level == 0 || level > 6 {
		return false
	}
	text := ""
	if i < n {
		if !isSpaceByte(s.viewAt(i)) {
			return false
		}
		text = trimSpaceBytes(s.ln[s.pos+i-s.pad:])
		if j := len(text) - 1; j >= 0 && text[j] == '#' {
			for j > 0 && text[j] == '#' {
				j--
			}
			switch {
			case j == 0 && text[0] == '#':
				text = ""
			case isSpaceByte(text[j]):
				text = trimSpaceBytes(text[:j])
			}
		}
	}
	s.push(mdBlock{kind: mdLine}, parent)
	s.toEOL()
	s.heading(text)
	return true
}

func (s *scanner) openFence(parent, k int) bool {
	c := s.viewAt(k)
	n := k
	for n < s.viewLen() && s.viewAt(n) == c {
		n++
	}
	if n-k < 3 {
		return false
	}
	if c == '`' && strings.IndexByte(s.ln[s.pos+n-s.pad:], '`') >= 0 {
		return false
	}
	s.push(mdBlock{kind: mdFence, fence: c, fenceLen: n - k}, parent)
	s.toEOL()
	return true
}

func (s *scanner) openHTML(parent, k int) bool {
	for i := 0; i < k; i++ {
		if s.viewAt(i) != ' ' {
			return false // a tab before "<" never starts an HTML block
		}
	}
	afterPara := len(s.stack) > 0 && s.stack[len(s.stack)-1].kind == mdPara
	kind := htmlStart(s.ln[s.pos+k-s.pad:], s.hasNL, afterPara)
	if kind == 0 {
		return false
	}
	first := s.ln[s.pos:]
	s.push(mdBlock{kind: mdHTML, html: kind, ended: kind <= 5 && htmlEnds(kind, first)}, parent)
	s.toEOL()
	return true
}

// openSetext turns the open paragraph into a heading when the line underlines it, and
// returns mdOpened. A paragraph made only of link reference definitions is no heading: it is
// dropped, and openSetext returns mdParaContinued for the line to be read again.
func (s *scanner) openSetext(parent int) int {
	if len(s.stack) == 0 {
		return mdNothing
	}
	top := &s.stack[len(s.stack)-1]
	if top.kind != mdPara || top.parent != parent || !s.setextAfterPara(0, 0) {
		return mdNothing
	}
	top.kind, top.cand = mdLine, false
	lines := make([]string, 0, len(s.lines)/2)
	for i := 0; i+1 < len(s.lines); i += 2 {
		end := s.lines[i+1]
		if i+2 < len(s.lines) {
			end++ // the "\n"
		}
		l := s.body[s.lines[i]:end]
		for len(l) > 0 && isSpaceByte(l[0]) {
			l = l[1:]
		}
		lines = append(lines, l)
	}
	lines = skipLinkRefDefs(lines)
	if len(lines) == 0 {
		return mdParaContinued
	}
	text := ""
	if s.onHeading != nil {
		var b strings.Builder
		for i, l := range lines {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(trimSpaceBytes(l))
		}
		text = b.String()
	}
	s.toEOL()
	s.heading(text)
	return mdOpened
}

// setextAfterPara reports whether the view from index from is a setext underline (of c, or
// either kind when c is 0) under the open paragraph.
func (s *scanner) setextAfterPara(from int, c byte) bool {
	if len(s.stack) == 0 || s.stack[len(s.stack)-1].kind != mdPara {
		return false
	}
	n := s.viewLen()
	i := from
	for i < n && s.viewAt(i) == ' ' {
		i++
	}
	if i-from > 3 || i >= n {
		return false
	}
	bar := s.viewAt(i)
	if bar != '=' && bar != '-' || (c != 0 && bar != c) {
		return false
	}
	for i < n && s.viewAt(i) == bar {
		i++
	}
	return isBlankStr(s.ln[s.pos+i-s.pad:])
}

// isBreakFrom reports whether the view from index k is a thematic break: three or more of
// "*", "-" or "_", all the same, between white space.
func (s *scanner) isBreakFrom(k int) bool {
	var mark byte
	count := 0
	for i := k; i < s.viewLen(); i++ {
		c := s.viewAt(i)
		if isSpaceByte(c) {
			continue
		}
		if mark == 0 {
			if c != '*' && c != '-' && c != '_' {
				return false
			}
			mark = c
		} else if c != mark {
			return false
		}
		count++
	}
	return count > 2
}

func (s *scanner) openPara(parent int) {
	b := mdBlock{kind: mdPara, line: s.lineNo}
	if s.onStep != nil && parent >= 0 && s.stack[parent].kind == mdItem && !s.stack[parent].hasChild {
		j := s.pos
		for j < len(s.ln) && isSpaceByte(s.ln[j]) {
			j++
		}
		end := len(s.ln)
		if end > 0 && s.ln[end-1] == '\r' {
			end--
		}
		if end-j >= 3 && s.ln[j] == '[' && s.ln[j+2] == ']' && strings.IndexByte(s.markers, s.ln[j+1]) >= 0 && (end == j+3 || s.ln[j+3] == ' ') {
			b.cand, b.mark, b.end = true, s.lnStart+j+1, s.lnStart+end
		}
	}
	s.push(b, parent)
	s.lines = s.lines[:0]
	s.addParaLine()
}

func (s *scanner) addParaLine() {
	s.lines = append(s.lines, s.lnStart+s.pos, s.lnStart+len(s.ln))
	s.toEOL()
}

// close closes block i: a paragraph that opens an item with a marker is a step.
func (s *scanner) close(i int) {
	b := &s.stack[i]
	if b.kind != mdPara || !b.cand || s.onStep == nil {
		return
	}
	b.cand = false
	item := &s.stack[b.parent]
	item.step = true
	depth := 0
	for p := item.parent; p >= 0; p = s.stack[p].parent {
		if s.stack[p].kind == mdItem && s.stack[p].step {
			depth++
		}
	}
	s.steps++
	text := ""
	if b.mark+3 <= b.end {
		text = s.body[b.mark+3 : b.end]
	}
	st := Item{Number: s.steps, Marker: s.body[b.mark], Text: text, Depth: depth, Line: b.line, MarkerOffset: b.mark, End: b.end}
	if !s.onStep(st) {
		s.stop = true
	}
}

func (s *scanner) heading(text string) {
	if s.onHeading != nil && !s.onHeading(text) {
		s.stop = true
	}
}

// The view.

func (s *scanner) viewLen() int { return s.pad + len(s.ln) - s.pos }

func (s *scanner) viewAt(i int) byte {
	if i < s.pad {
		return ' '
	}
	return s.ln[s.pos+i-s.pad]
}

// indent returns the width in columns of the view's leading spaces and tabs and the view
// index of the first other character.
func (s *scanner) indent() (w, k int) {
	w = s.pad
	col := s.bcol
	for k = s.pos; k < len(s.ln); k++ {
		switch s.ln[k] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return w + col - s.bcol, s.pad + k - s.pos
		}
	}
	return w + col - s.bcol, s.pad + k - s.pos
}

// offsetValid reports whether headings and fences may start after an indentation of w
// columns: goldmark starts neither when w reaches the length in bytes of the rest of the line
// (its line ending included), as after a tab that follows a container's marker.
func (s *scanner) offsetValid(w int) bool {
	n := s.viewLen()
	if s.hasNL {
		n++
	}
	return w < n
}

// advance consumes n view characters: virtual spaces first, then bytes.
func (s *scanner) advance(n int) {
	for ; n > 0 && s.pad > 0; n-- {
		s.pad--
	}
	for ; n > 0 && s.pos < len(s.ln); n-- {
		if s.ln[s.pos] == '\t' {
			s.bcol += 4 - s.bcol%4
		} else {
			s.bcol++
		}
		s.pos++
	}
}

func (s *scanner) setPad(p int) {
	if p > s.pad {
		s.pad = p
	}
}

// advanceCols consumes n columns of leading white space, leaving what is left of a tab as
// virtual spaces.
func (s *scanner) advanceCols(n int) {
	w, i := 0, 0
	col := s.bcol - s.pad
	for ; i < s.viewLen() && w < n; i++ {
		switch s.viewAt(i) {
		case ' ':
			w++
		case '\t':
			w += 4 - (col+w)%4
		default:
			s.advance(i)
			return
		}
	}
	s.advance(i)
	s.setPad(w - n)
}

func (s *scanner) toEOL() { s.pos, s.pad = len(s.ln), 0 }

func (s *scanner) blank() bool { return isBlankStr(s.ln[s.pos:]) }

// isSpaceByte reports the white space of block structure: space, tab and carriage return.
func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isBlankStr(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpaceByte(s[i]) {
			return false
		}
	}
	return true
}

func trimSpaceBytes(s string) string {
	i, j := 0, len(s)
	for i < j && isSpaceByte(s[i]) {
		i++
	}
	for j > i && isSpaceByte(s[j-1]) {
		j--
	}
	return s[i:j]
}

// FirstHeading returns the text of the first heading of a Markdown body, as CommonMark reads
// it: an ATX heading ("# Title", closing "#"s dropped) or a setext heading (lines underlined
// by "===" or "---", joined by one space), never one inside a code block or an HTML block or
// comment. Each line is trimmed of spaces, tabs and line endings. ok is false when the body
// has no heading; an empty heading returns "" and true.
func FirstHeading(body string) (text string, ok bool) {
	s := scanner{body: body, onHeading: func(t string) bool {
		text, ok = t, true
		return false
	}}
	s.run()
	return text, ok
}

// Item is a task-list item: a list item whose first block is a paragraph opening with
// "[c]", c one of the markers asked for, followed by a space or the end of the line.
type Item struct {
	Number int    // 1-based, in document order
	Marker byte   // the character between the brackets
	Text   string // the rest of the marker's line after "[c] "
	Depth  int    // how many task-list items enclose this one
	Line   int    // 0-based line of the marker
	// MarkerOffset is the body offset of the marker character; End the offset where the
	// marker's line content ends (before "\r\n" or "\n").
	MarkerOffset, End int
}

// Items calls yield with each task-list item of body whose marker is one of markers, in
// document order, until yield returns false, and returns how many it passed to yield. Nothing
// inside a code block (fenced, even unclosed, or indented) or an HTML block or comment is an
// item, nor is a paragraph that a setext underline turns into a heading.
func Items(body, markers string, yield func(Item) bool) (count int) {
	s := scanner{body: body, markers: markers, onStep: yield}
	s.run()
	return s.steps
}
