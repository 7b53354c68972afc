package plan_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// A rewrite that moves a step and appends " — text" to it rewords the step, whatever it
// looks like: a stale move of another step made before it is refused (steps_changed), while
// the same line written by a step move with a note lets it through.
func TestAStaleMoveNeverCommutesPastARewriteThatLooksLikeAMove(t *testing.T) {
	ctx := context.Background()
	moved := "# Team\n- [x] design — and ship it to prod\n- [ ] build\n- [ ] test\n- [ ] ship\n"

	s, _ := newTeamStore(t, plan.StoreConfig{})
	_, err := s.Put(ctx, plan.Update{Name: "team", Content: ptr(moved), IfRevision: rev(1)})
	require.NoError(t, err)
	_, _, perr := move(t, s, plan.StepMove{Step: 2, State: plan.StepCompleted, By: "w2", IfRevision: rev(1)})
	require.NotNil(t, perr, "the rewrite reworded step 1")
	assert.Equal(t, plan.CodeRevisionConflict, perr.Code)
	assert.Equal(t, "steps_changed", perr.Reason)

	s, _ = newTeamStore(t, plan.StoreConfig{})
	p, _, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepCompleted, Note: "and ship it to prod", IfRevision: rev(1)})
	require.Nil(t, perr)
	require.Equal(t, moved, p.Content, "the same body, written by a move")
	_, _, perr = move(t, s, plan.StepMove{Step: 2, State: plan.StepCompleted, By: "w2", IfRevision: rev(1)})
	assert.Nil(t, perr, "a move with a note leaves the other steps as they were")
}

// The same in a seeded run: each round changes one step either by a move with a note or by a
// rewrite to the very same body, then makes a stale move of another step from the revision
// before. Moves commute, rewrites never do, in every round.
func TestStaleMovesCommuteOnlyPastMoves(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 300))
	states := []plan.StepState{plan.StepInProgress, plan.StepCompleted, plan.StepFailed, plan.StepSkipped}
	var wrongApplies, wrongRefusals []string
	for round := range 300 {
		s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
		require.NoError(t, err)
		n := 2 + rng.IntN(6)
		var b strings.Builder
		b.WriteString("# Work\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "- [ ] part %d\n", i)
		}
		_, err = s.Put(ctx, plan.Update{Name: "work", Content: ptr(b.String())})
		require.NoError(t, err)
		for range rng.IntN(3) { // some earlier moves, so revisions and states vary
			_, _, _ = s.MoveStep(ctx, plan.StepMove{Name: "work", Step: 1 + rng.IntN(n), State: plan.StepCompleted})
		}
		p, err := s.Get(ctx, "work")
		require.NoError(t, err)
		base := p.Revision
		steps := plan.ParseSteps(p.Content)
		var pending []int
		for _, st := range steps {
			if st.State == plan.StepPending {
				pending = append(pending, st.Number)
			}
		}
		if len(pending) < 2 {
			continue
		}
		rng.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		changed, other := pending[0], pending[1]
		to := states[rng.IntN(len(states))]
		note := fmt.Sprintf("note %d", rng.IntN(1000))

		viaMove := rng.IntN(2) == 0
		if viaMove {
			_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "work", Step: changed, State: to, Note: note, IfRevision: rev(base)})
			require.NoError(t, err)
		} else {
			moved, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
			require.NoError(t, err)
			_, err = moved.Put(ctx, plan.Update{Name: "work", Content: ptr(p.Content)})
			require.NoError(t, err)
			q, _, err := moved.MoveStep(ctx, plan.StepMove{Name: "work", Step: changed, State: to, Note: note})
			require.NoError(t, err)
			_, err = s.Put(ctx, plan.Update{Name: "work", Content: ptr(q.Content), IfRevision: rev(base)})
			require.NoError(t, err)
		}
		_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "work", Step: other, State: plan.StepCompleted, By: "late", IfRevision: rev(base)})
		switch {
		case viaMove && err != nil:
			wrongRefusals = append(wrongRefusals, fmt.Sprintf("round %d: %v", round, err))
		case !viaMove && err == nil:
			wrongApplies = append(wrongApplies, fmt.Sprintf("round %d: step %d to %s", round, changed, to))
		case !viaMove:
			assert.Equal(t, "steps_changed", reasonOf(err), "round %d", round)
		}
	}
	assert.Empty(t, wrongApplies, "a stale move commuted past a rewrite")
	assert.Empty(t, wrongRefusals, "a stale move was refused after a move of another step")
}

func reasonOf(err error) string {
	var pe *plan.Error
	if !errors.As(err, &pe) {
		return ""
	}
	return pe.Reason
}
