package tools

import (
	"reflect"
	"strings"

	"github.com/einoplan/plan/internal/document"
)

// withoutRepeats returns a, the decoding of the JSON object text, once a key given more than
// once in text has been read as an alias is: its null occurrences say nothing, and the
// others must agree, or the call is refused (repeated_argument). The decoder keeps only a
// key's last value, so without this `"last_known_revision":1,"last_known_revision":null`
// would drop a guard the call spelled. A text with no repeated key, the usual case, costs
// one scan that counts its members.
func withoutRepeats(text string, a args) (args, error) {
	n := 0
	eachMember(text, func(string, string) { n++ })
	if n == len(a) {
		return a, nil
	}
	out := make(args, len(a))
	var err error
	eachMember(text, func(rawKey, rawValue string) {
		var key string
		var v any
		switch {
		case err != nil:
		case argsAPI.UnmarshalFromString(rawKey, &key) != nil || argsAPI.UnmarshalFromString(rawValue, &v) != nil:
			err = document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonArgsNotJSON})
		default:
			prev, seen := out[key]
			switch {
			case !seen || prev == nil:
				out[key] = v
			case v != nil && !reflect.DeepEqual(prev, v):
				err = document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonRepeatedArgument, Field: shownKey(key)})
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachMember calls f with the JSON text of each key and value of the object text, one the
// decoder accepted, in order; fewer members decoded than found means a repeated key. It skips strings whole (a raw line break in one too) and
// nested values, so it splits wherever the decoder does.
func eachMember(text string, f func(key, value string)) {
	depth, start, colon := 0, 0, -1
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			i = closingQuote(text, i)
		case '{', '[':
			if depth++; depth == 1 {
				start = i + 1
			}
		case ':':
			if depth == 1 && colon < 0 {
				colon = i
			}
		case ',', '}', ']':
			if depth == 1 && colon >= 0 {
				f(strings.TrimSpace(text[start:colon]), strings.TrimSpace(text[colon+1:i]))
				start, colon = i+1, -1
			}
			if text[i] != ',' {
				depth--
			}
		}
	}
	if depth >= 1 && colon >= 0 { // text that ends inside its last member
		f(strings.TrimSpace(text[start:colon]), strings.TrimSpace(text[min(colon+1, len(text)):]))
	}
}

// closingQuote returns the index of the quote that closes the string opening at text[open],
// or len(text) when none does.
func closingQuote(text string, open int) int {
	for i := open + 1; ; {
		j := strings.IndexByte(text[i:], '"')
		if j < 0 {
			return len(text)
		}
		i += j
		backslashes := 0
		for k := i - 1; k > open && text[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i
		}
		i++
	}
}
