package plan_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

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
