package backendtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// testNextStep: a move with Next finishes a step and takes the next ready one in one
// guarded write, on every backend: one revision, one history entry, the step taken held by
// the mover; on the last step it finishes without an error.
func testNextStep(t *testing.T, b plan.Backend, dir string) {
	ctx := context.Background()
	s, _ := storeHolding(t, b, dir, "next", "# N\n- [ ] one\n- [ ] two (after 3)\n- [ ] three\n")
	_, _, err := s.MoveStep(ctx, plan.StepMove{Name: "next", Step: 1, State: plan.StepInProgress, By: "w"})
	require.NoError(t, err)
	for _, want := range []struct{ from, took int }{{1, 3}, {3, 2}} {
		before, err := s.History(ctx, "next")
		require.NoError(t, err)
		p, held, err := s.MoveStep(ctx, plan.StepMove{Name: "next", Step: want.from, State: plan.StepCompleted, By: "w", Next: true})
		require.NoError(t, err)
		require.Equal(t, want.took, held.Number)
		require.Equal(t, "w", held.Holder)
		require.Equal(t, plan.StepInProgress, held.State)
		after, err := s.History(ctx, "next")
		require.NoError(t, err)
		require.Len(t, after, len(before)+1, "one history entry")
		require.Equal(t, p.Revision, after[0].Revision)
	}
	p, last, err := s.MoveStep(ctx, plan.StepMove{Name: "next", Step: 2, State: plan.StepCompleted, By: "w", Next: true})
	require.NoError(t, err)
	require.Equal(t, 2, last.Number)
	require.Equal(t, 3, plan.Summarize(p).Progress.Completed)
}
