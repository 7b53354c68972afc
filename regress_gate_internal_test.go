package plan

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Under the approval gate a rewrite that drops an approval cannot start steps nobody
// approved, and a rewrite that only rewords or annotates finished steps is not refused.
func TestRegressGateOnRewrites(t *testing.T) {
	ctx := context.Background()
	gated := withStepGate(ctx)
	s, err := NewStore(&StoreConfig{Backend: NewMemoryBackend()})
	require.NoError(t, err)
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("- [ ] A\n- [ ] B\n")})
	require.NoError(t, err)
	_, err = s.Approve(ctx, "p", 1, "boss")
	require.NoError(t, err)

	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("- [x] never approved\n")})
	assert.Equal(t, CodeNotApproved, CodeOf(err), "replacing an approved plan's steps with done ones")

	_, _, err = s.updateStep(gated, "p", 1, StepCompleted, "", nil)
	require.NoError(t, err)
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("Intro.\n- [x] A\n- [ ] B\n")})
	require.NoError(t, err, "a rewrite that starts nothing")
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("Intro.\n- [x] A — shipped in v2\n- [ ] B\n")})
	require.NoError(t, err, "a note on a finished step starts nothing")
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("Intro.\n- [x] A — shipped in v2\n- [x] B\n")})
	assert.Equal(t, CodeNotApproved, CodeOf(err), "B is not approved to finish")
}

// A stale move of a step number below 1 is refused, never a panic.
func TestRegressStaleMoveOfANegativeStep(t *testing.T) {
	ctx := context.Background()
	s, err := NewStore(&StoreConfig{Backend: NewMemoryBackend()})
	require.NoError(t, err)
	_, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] A\n")})
	require.NoError(t, err)
	_, err = s.SetStatus(ctx, "p", "go", nil)
	require.NoError(t, err)
	one := int64(1)
	_, _, err = s.updateStep(ctx, "p", -1, StepCompleted, "", &one)
	assert.Equal(t, CodeInvalidArgument, CodeOf(err))
}

// A plan file edited by hand (steps swapped, revision bumped, its steps_revision line left
// as it was) no longer vouches for its steps: a stale move is refused, not applied to the
// step that moved into its place.
func TestRegressHandEditVoidsStepsRevision(t *testing.T) {
	ctx := context.Background()
	b := NewMemoryBackend()
	s, err := NewStore(&StoreConfig{Backend: b, HistoryLimit: -1})
	require.NoError(t, err)
	_, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] A\n- [ ] B\n")})
	require.NoError(t, err)
	p, err := s.SetStatus(ctx, "p", "go", nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, p.stepsRev)
	raw, _, err := s.readRaw(ctx, s.planPath("p"))
	require.NoError(t, err)
	edited := strings.Replace(strings.Replace(raw, "revision: 2", "revision: 3", 1), "- [ ] A\n- [ ] B\n", "- [ ] B\n- [ ] A\n", 1)
	require.Contains(t, edited, "steps_revision: 1")
	require.NoError(t, b.Write(ctx, &WriteRequest{FilePath: s.planPath("p"), Content: edited}))
	two := int64(2)
	_, _, err = s.updateStep(ctx, "p", 1, StepCompleted, "", &two)
	assert.Equal(t, CodeRevisionConflict, CodeOf(err))
	q, err := s.Get(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, "- [ ] B\n- [ ] A\n", q.Content)
}
