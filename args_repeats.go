package plan

import (
	"reflect"
	"strings"
)

// withoutRepeats returns a, the decoding of the JSON object text, once a key given more than
// once in text has been read as an alias is: its null occurrences say nothing, and the
// others must agree, or the call is refused (repeated_argument). The decoder keeps only a
// key's last value, so without this `"last_known_revision":1,"last_known_revision":null`
// would drop a guard the call spelled. A text with no repeated key, the usual case, costs
// one scan for its top-level colons.
func withoutRepeats(text string, a args) (args, error) {
	if topLevelColons(text) == len(a) {
		return a, nil
	}
	out := make(args, len(a))
	for _, m := range topLevelMembers(text) {
		var key string
		var v any
		if argsAPI.UnmarshalFromString(m.key, &key) != nil || argsAPI.UnmarshalFromString(m.value, &v) != nil {
			return nil, fail(Error{Code: CodeInvalidArgument, Reason: reasonArgsNotJSON})
		}
		prev, seen := out[key]
		switch {
		case !seen || prev == nil:
			out[key] = v
		case v != nil && !reflect.DeepEqual(prev, v):
			return nil, fail(Error{Code: CodeInvalidArgument, Reason: reasonRepeatedArgument, Field: shownKey(key)})
		}
	}
	return out, nil
}

// member is the JSON text of one key and its value.
type member struct{ key, value string }

// topLevelMembers splits the object text, one the decoder accepted, into its members, in
// order, with the scan topLevelColons makes: whatever the decoder accepts (a raw line break
// in a string too) splits the same way.
func topLevelMembers(text string) []member {
	var out []member
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
				out = append(out, member{strings.TrimSpace(text[start:colon]), strings.TrimSpace(text[colon+1 : i])})
				start, colon = i+1, -1
			}
			if text[i] != ',' {
				depth--
			}
		}
	}
	return out
}

// topLevelColons counts the colons of the JSON object text outside strings and nested
// values: one per member, so fewer members decoded than colons means a repeated key.
func topLevelColons(text string) int {
	n, depth := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			i = closingQuote(text, i)
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ':':
			if depth == 1 {
				n++
			}
		}
	}
	return n
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
