package document

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Only the last (@name) tag of an in-progress step names its holder; HolderName escapes what a
// tag cannot hold.
func TestHolderTagsReadBack(t *testing.T) {
	for _, tc := range []struct{ body, holder string }{
		{"- [~] build (@w2)\n", "w2"},
		{"- [~] ask (@bob) (@w2)\n", "w2"},
		{"- [~] ask (@bob) — waiting\n", ""},
		{"- [ ] build (@w2)\n", ""},
		{"- [x] build (@w2) — done\n", ""},
		{"- [~] build (@)\n", ""},
		{"- [~] build (@a b)\n", "a b"},
		{"- [~] build (@a\tb)\n", ""},
	} {
		steps := ParseSteps(tc.body)
		require.Len(t, steps, 1)
		assert.Equal(t, tc.holder, steps[0].Holder, tc.body)
	}
	assert.Equal(t, "Research Agent %28x%29", HolderName("Research Agent (x)"))
}
