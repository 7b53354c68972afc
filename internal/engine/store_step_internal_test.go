package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stale move of a step number below 1 is refused, never a panic.
func TestStaleMoveOfAStepBelowOneIsRefused(t *testing.T) {
	ctx := context.Background()
	s, err := NewStore(&StoreConfig{Backend: memfs.New()})
	require.NoError(t, err)
	_, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] A\n")})
	require.NoError(t, err)
	_, err = s.SetStatus(ctx, "p", "go", nil)
	require.NoError(t, err)
	one := int64(1)
	_, _, err = s.updateStep(ctx, "p", -1, document.StepCompleted, "", &one)
	assert.Equal(t, document.CodeInvalidArgument, document.CodeOf(err))
}

// A plan file edited by hand (steps swapped, revision bumped, its steps_revision line left
// as it was) no longer vouches for its steps: a stale move is refused, not applied to the
// step that moved into its place.
func TestHandEditVoidsTheStepsRevision(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	s, err := NewStore(&StoreConfig{Backend: b, HistoryLimit: -1})
	require.NoError(t, err)
	_, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] A\n- [ ] B\n")})
	require.NoError(t, err)
	p, err := s.SetStatus(ctx, "p", "go", nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, p.StepsRev)
	raw, _, err := s.readRaw(ctx, s.planPath("p"))
	require.NoError(t, err)
	edited := strings.Replace(strings.Replace(raw, "revision: 2", "revision: 3", 1), "- [ ] A\n- [ ] B\n", "- [ ] B\n- [ ] A\n", 1)
	require.Contains(t, edited, "steps_revision: 1")
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.planPath("p"), Content: edited}))
	two := int64(2)
	_, _, err = s.updateStep(ctx, "p", 1, document.StepCompleted, "", &two)
	assert.Equal(t, document.CodeRevisionConflict, document.CodeOf(err))
	q, err := s.Get(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, "- [ ] B\n- [ ] A\n", q.Content)
}

// A takeover with a note leaves the list of steps as it was.
func TestTakeoverWithANoteKeepsTheStepList(t *testing.T) {
	was := document.ParseSteps("- [~] design (@w1)\n- [ ] build\n")
	now := document.ParseSteps("- [~] design — w1 stopped (@w2)\n- [ ] build\n")
	if !SameStepList(was, now) {
		t.Fatal("a takeover with a note counted as a reworded step")
	}
	if SameStepList(was, document.ParseSteps("- [~] design it (@w2)\n- [ ] build\n")) {
		t.Fatal("a reworded step counted as a takeover")
	}
}

// A step with no text of its own, moved with a note or taken, keeps the list as it was.
func TestEmptyStepMovedKeepsTheStepList(t *testing.T) {
	was := document.ParseSteps("- [ ]\n- [ ] build\n")
	for _, now := range []string{"- [x] — done\n- [ ] build\n", "- [~] (@w1)\n- [ ] build\n"} {
		if !SameStepList(was, document.ParseSteps(now)) {
			t.Errorf("%q counted as a changed list", now)
		}
	}
}
