package engine

import (
	"context"
	"testing"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A finishing move of no step number finishes the one step its mover holds, chosen in the
// move's own write (one revision, also with Next and from a stale revision); a mover that
// holds none or several is refused, naming the steps, and nothing is written.
func TestAFinishingMoveOfNoStepFinishesTheMoversOneStep(t *testing.T) {
	ctx := context.Background()
	s, err := NewStore(&StoreConfig{Backend: memfs.New()})
	require.NoError(t, err)
	_, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] A\n- [ ] B\n- [ ] C\n")})
	require.NoError(t, err)
	rev := func() int64 {
		p, err := s.Get(ctx, "p")
		require.NoError(t, err)
		return p.Revision
	}
	move := func(m StepMove) (document.Step, error) {
		_, st, err := s.MoveStep(ctx, m)
		return st, err
	}

	_, err = move(StepMove{Name: "p", State: document.StepCompleted, By: "w"})
	assert.Equal(t, document.ReasonNoHeldStep, reasonOf(err))
	assert.EqualValues(t, 1, rev(), "nothing written")

	for _, n := range []int{1, 3} {
		_, err = move(StepMove{Name: "p", Step: n, State: document.StepInProgress, By: "w"})
		require.NoError(t, err)
	}
	_, err = move(StepMove{Name: "p", State: document.StepFailed, By: "w"})
	assert.Equal(t, document.ReasonHeldSteps, reasonOf(err))
	assert.Contains(t, err.Error(), "1, 3")
	assert.EqualValues(t, 3, rev(), "nothing written")

	_, err = move(StepMove{Name: "p", Step: 1, State: document.StepCompleted, By: "w"})
	require.NoError(t, err)
	stale := int64(2)
	took, err := move(StepMove{Name: "p", State: document.StepCompleted, By: "w", Next: true, IfRevision: &stale})
	require.NoError(t, err)
	assert.Equal(t, 2, took.Number, "step 3 finished, step 2 taken")
	p, err := s.Get(ctx, "p")
	require.NoError(t, err)
	assert.EqualValues(t, 5, p.Revision, "one revision")
	assert.Equal(t, document.StepCompleted, document.StepsOf(p.Content)[2].State)

	_, err = move(StepMove{Name: "p", State: document.StepCompleted, By: "other"})
	assert.Equal(t, document.ReasonNoHeldStep, reasonOf(err), "another agent's step is not the mover's")
}
