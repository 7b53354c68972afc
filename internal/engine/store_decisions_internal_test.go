package engine

import (
	"context"
	"testing"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Under the approval gate a rewrite that drops an approval cannot start steps nobody approved,
// and a rewrite that only rewords or annotates finished steps is not refused.
func TestApprovalGateLetsNoRewriteStartAnUnapprovedStep(t *testing.T) {
	ctx := context.Background()
	gated := document.WithStepGate(ctx)
	s, err := NewStore(&StoreConfig{Backend: memfs.New()})
	require.NoError(t, err)
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("- [ ] A\n- [ ] B\n")})
	require.NoError(t, err)
	_, err = s.Approve(ctx, "p", 1, "boss")
	require.NoError(t, err)

	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("- [x] never approved\n")})
	assert.Equal(t, document.CodeNotApproved, document.CodeOf(err), "replacing an approved plan's steps with done ones")

	_, _, err = s.updateStep(gated, "p", 1, document.StepCompleted, "", nil)
	require.NoError(t, err)
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("Intro.\n- [x] A\n- [ ] B\n")})
	require.NoError(t, err, "a rewrite that starts nothing")
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("Intro.\n- [x] A — shipped in v2\n- [ ] B\n")})
	require.NoError(t, err, "a note on a finished step starts nothing")
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("Intro.\n- [x] A — shipped in v2\n- [x] B\n")})
	assert.Equal(t, document.CodeNotApproved, document.CodeOf(err), "B is not approved to finish")
}
