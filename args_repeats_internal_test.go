package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Only the colons between a top-level key and its value count: not those in strings
// (escaped quotes included) or nested values.
func TestTopLevelColonsCountMembers(t *testing.T) {
	for text, want := range map[string]int{
		`{}`:                0,
		`{"a":1}`:           1,
		`{"a":"x:y","b":2}`: 2,
		`{"a\":":"\\","b":{"c":1,"d":[{"e":2}]}}`: 2,
		`{"a":"\\\"b\":1"}`:                       1,
		`{"a":"unterminated`:                      1,
	} {
		assert.Equal(t, want, topLevelColons(text), text)
	}
}

// The members are split where the decoder splits them, raw line breaks in strings and
// nested values included.
func TestTopLevelMembersSplitEachKeyFromItsValue(t *testing.T) {
	got := topLevelMembers("{ \"a\" : \"x,\n}\" , \"b\":{\"c\":[1,{\"d\":2}]},\"a\":null }")
	assert.Equal(t, []member{{`"a"`, "\"x,\n}\""}, {`"b"`, `{"c":[1,{"d":2}]}`}, {`"a"`, "null"}}, got)
	assert.Empty(t, topLevelMembers("{}"))
}
