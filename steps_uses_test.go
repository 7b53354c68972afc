package plan_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// "(uses …)" names the gated tools a step may use, in either order with "(after …)" and
// among other parenthesised suffixes, before any note and holder tag; the text stays as
// written.
func TestUsesIsReadFromTheStepTextInEitherOrderWithAfter(t *testing.T) {
	steps := plan.ParseSteps(`- [ ] a
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

// A move's note never changes what a step may use: a note ending like "(uses …)" is refused
// with invalid_argument and nothing is written, so an approved step cannot be given more
// tools than the person approved.
func TestANoteCannotChangeTheToolsAStepMayUse(t *testing.T) {
	ctx := context.Background()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	body := "# Fix\n- [ ] Fix a typo in the README\n- [ ] Deploy (uses deploy_prod)\n"
	p, err := s.Put(ctx, plan.Update{Name: "fix", Content: &body})
	require.NoError(t, err)
	p, err = s.Approve(ctx, "fix", p.Revision, "ana")
	require.NoError(t, err)
	for _, tc := range []struct {
		step int
		note string
	}{
		{1, "(uses deploy_prod)"},
		{1, "typo — (uses deploy_prod)"},
		{2, "ok (uses deploy_prod, write_file)"},
		{2, "(uses write_file)"},
	} {
		_, _, err := s.MoveStep(ctx, plan.StepMove{Name: "fix", Step: tc.step, State: plan.StepInProgress, Note: tc.note, By: "w1"})
		var pe *plan.Error
		require.True(t, errors.As(err, &pe), "%q: %v", tc.note, err)
		assert.Equal(t, plan.CodeInvalidArgument, pe.Code, tc.note)
		assert.Equal(t, "note_uses", pe.Reason, tc.note)
	}
	cur, err := s.Get(ctx, "fix")
	require.NoError(t, err)
	assert.Equal(t, p.Revision, cur.Revision, "nothing was written")
	_, st, err := s.MoveStep(ctx, plan.StepMove{Name: "fix", Step: 2, State: plan.StepInProgress, Note: "going (carefully)", By: "w1"})
	require.NoError(t, err, "a note that leaves the tools as they were is fine")
	assert.Equal(t, []string{"deploy_prod"}, st.Uses)
}
