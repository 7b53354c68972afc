package tools

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/einoplan/plan/internal/document"
)

// MaxActorQuote bounds an actor's or a holder's name where a model reads it.
const MaxActorQuote = 64

// QuoteInline is s as a JSON string for a line a model reads, cut to max bytes: besides what
// JSON escapes, every character that could break a line or hide text is escaped as \uXXXX
// (DEL, C1 controls such as NEL, U+2028, U+2029, and format characters such as bidi
// overrides and zero-width marks). So the result holds no line break of any kind, and text
// a person or a model wrote can never start a line of its own or pass for the line's words.
func QuoteInline(s string, max int) string {
	q := jsonString(document.TruncateUTF8(s, max))
	for i := 0; i < len(q); i++ {
		if q[i] >= utf8.RuneSelf-1 { // DEL, or the first byte of a rune past ASCII
			return escapeInline(q)
		}
	}
	return q
}

// escapeInline escapes in q, a JSON string, the runes quoteInline names.
func escapeInline(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 12)
	for _, r := range q {
		if r == 0x7f || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r) {
			b.WriteString(`\u`)
			hex := strconv.FormatUint(uint64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(hex)) + hex)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// InlineName is a holder's name for a line a model reads: as it is when it holds nothing but
// ASCII letters, digits and ". _ - : / @ %" (as a holder tag in a plan shows it), else
// quoted by quoteInline.
func InlineName(s string) string {
	if s == "" || len(s) > MaxActorQuote {
		return QuoteInline(s, MaxActorQuote)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._-:/@%", c) >= 0) {
			return QuoteInline(s, MaxActorQuote)
		}
	}
	return s
}
