package plan

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// placeholderRE matches a placeholder that Error.render or the template fill in.
var placeholderRE = regexp.MustCompile(`\{[a-z_]+\}`)

func placeholders(text string) []string {
	found := placeholderRE.FindAllString(text, -1)
	slices.Sort(found)
	return found
}

// TestErrorTextsHaveTheSamePlaceholders: every "err.*" text states the same facts in both
// languages, and every reason an Error can carry has a text in both, so no message falls
// back to English.
func TestErrorTextsHaveTheSamePlaceholders(t *testing.T) {
	n := 0
	for key, en := range textsEN {
		if !strings.HasPrefix(key, "err.") {
			continue
		}
		n++
		zh, ok := textsZH[key]
		if assert.True(t, ok, key) {
			assert.Equal(t, placeholders(en), placeholders(zh), key)
		}
	}
	assert.Greater(t, n, 40)
	reasons := []string{reasonListLimit}
	for r := range factTexts {
		reasons = append(reasons, r)
	}
	for _, r := range reasons {
		_, en := textsEN["err."+string(r)]
		_, zh := textsZH["err."+string(r)]
		assert.True(t, en && zh, "reason %s has no err.%s text in both languages", r, r)
	}
	// The check sees a placeholder that only one language has.
	assert.NotEqual(t, placeholders("{name} at {current}"), placeholders("计划 {name}"))
}
