package document

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// "(uses …)" names the gated tools a step may use, in either order with "(after …)" and
// among other parenthesised suffixes, before any note and holder tag; the text stays as
// written.
func TestUsesIsReadFromTheStepTextInEitherOrderWithAfter(t *testing.T) {
	steps := ParseSteps(`- [ ] a
- [ ] b
- [ ] Deploy to production (after 2) (uses deploy_prod)
- [ ] Deploy again (uses deploy_prod, write_file) (after 1, 2)
- [~] Ship (uses write_file,deploy_prod) (@w1)
- [x] Tag (after 1) (uses git_tag) (@w1) — tagged v2
- [ ] Review (after 2) (review) (uses edit_file) (budget 20k tokens)
- [ ] Fix the typo (in the README)
- [ ] Bad list (uses deploy prod)
- [ ] Not at the end (uses deploy_prod) then more
- [ ] Nothing
`)
	require.Len(t, steps, 11)
	assert.Equal(t, []int{2}, steps[2].After)
	assert.Equal(t, []string{"deploy_prod"}, steps[2].Uses)
	assert.Equal(t, "Deploy to production (after 2) (uses deploy_prod)", steps[2].Text)
	assert.Equal(t, []int{1, 2}, steps[3].After, "an (after …) before or after (uses …) is read")
	assert.Equal(t, []string{"deploy_prod", "write_file"}, steps[3].Uses)
	assert.Equal(t, []string{"deploy_prod", "write_file"}, steps[4].Uses)
	assert.Equal(t, "w1", steps[4].Holder)
	assert.Equal(t, []int{1}, steps[5].After, "the holder's tag and a note follow the step's own text")
	assert.Equal(t, []string{"git_tag"}, steps[5].Uses)
	assert.Equal(t, []int{2}, steps[6].After, "other suffixes are skipped")
	assert.Equal(t, []string{"edit_file"}, steps[6].Uses)
	for _, s := range steps[7:] {
		assert.Nil(t, s.Uses, "step %d: %s", s.Number, s.Text)
		assert.Nil(t, s.After, "step %d: %s", s.Number, s.Text)
	}
}
