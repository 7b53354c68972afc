package document

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Header values are JSON strings: how one is written and read back.

func WriteHeaderString(b *strings.Builder, key, value string) {
	b.WriteString(key)
	b.WriteString(": ")
	writeJSONString(b, value)
	b.WriteByte('\n')
}

// writeJSONString writes s as a JSON string without HTML escaping, so titles stay readable.
// Header strings are valid UTF-8 (the Store rejects anything else).
func writeJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	if !needsEscape(s) {
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c == 0x7f:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == 0x7f {
			return true
		}
	}
	return false
}

type ErrString string

func (e ErrString) Error() string { return string(e) }

func DecodeJSONString(value string, out *string) error {
	if len(value) < 2 || value[0] != '"' {
		return ErrString("header value is not a JSON string")
	}
	if !strings.ContainsRune(value, '\\') && strings.IndexByte(value[1:], '"') == len(value)-2 && utf8.ValidString(value) {
		*out = value[1 : len(value)-1]
		return nil
	}
	if err := json.Unmarshal([]byte(value), out); err != nil {
		return ErrString("header value is not a JSON string")
	}
	return nil
}
