package api

import (
	"strings"
	"unicode/utf8"
)

// MaxHolderLen bounds the name in a holder tag, in bytes.
const MaxHolderLen = 64

// ValidHolder reports whether name is what a holder tag may name: at most MaxHolderLen bytes
// of UTF-8 with no parenthesis or control character, "%" only as the start of %XX. Every
// name the Store holds steps under is one.
func ValidHolder(name string) bool {
	if name == "" || len(name) > MaxHolderLen || !utf8.ValidString(name) {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c < ' ' || c == '(' || c == ')' || c == 0x7f:
			return false
		case c == '%':
			if i+2 >= len(name) || !isUpperHex(name[i+1]) || !isUpperHex(name[i+2]) {
				return false
			}
		}
	}
	return true
}

func isUpperHex(c byte) bool { return '0' <= c && c <= '9' || 'A' <= c && c <= 'F' }

// SplitHolder returns a step text without its trailing holder tag " (@name)", and the
// holder it names ("" when the text ends in no tag naming a ValidHolder). It is the one
// reader of the tag: the Store, the tools, the board and planctl read holders through it.
func SplitHolder(text string) (rest, holder string) {
	if !strings.HasSuffix(text, ")") {
		return text, ""
	}
	i, skip := strings.LastIndex(text, " (@"), 3
	if i < 0 && strings.HasPrefix(text, "(@") {
		i, skip = 0, 2 // a step with no text of its own
	}
	if i < 0 {
		return text, ""
	}
	name := text[i+skip : len(text)-1]
	if !ValidHolder(name) {
		return text, ""
	}
	return text[:i], name
}
