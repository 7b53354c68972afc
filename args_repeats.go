package plan

import (
	"encoding/json"
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
	dec := json.NewDecoder(strings.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return a, nil // the fast decoder read it; this one is only here to find repeats
	}
	out := make(args, len(a))
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		var raw json.RawMessage
		if err != nil || !isKey || dec.Decode(&raw) != nil {
			return a, nil
		}
		var v any
		if err := argsAPI.Unmarshal(raw, &v); err != nil {
			return a, nil
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
