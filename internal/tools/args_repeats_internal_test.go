package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// topLevelColons counts the members eachMember finds: one per colon between a top-level
// key and its value.
func topLevelColons(text string) int {
	n := 0
	eachMember(text, func(string, string) { n++ })
	return n
}

// member is the JSON text of one key and its value.
type member struct{ key, value string }

func topLevelMembers(text string) []member {
	var out []member
	eachMember(text, func(k, v string) { out = append(out, member{k, v}) })
	return out
}

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
