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
