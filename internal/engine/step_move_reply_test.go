package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
)

// On a plan the approval requirement keeps from moving, an agent's move that names the
// step's own state with a note answers the open comments on that step and writes nothing
// else; the same move on a step with no open comment, or one that changes the state, stays
// not_approved and writes nothing.
func TestANoteOnlyReplyAnswersTheCommentsOfAPlanNotApproved(t *testing.T) {
	body := "- [ ] a\n- [ ] b\n"
	s, commented, agent := commentedPlan(t, document.WithStepGate(context.Background()), body, 2)

	for _, m := range []StepMove{
		{Name: "p", Step: 1, State: document.StepPending, Note: "no comment here"},
		{Name: "p", Step: 2, State: document.StepInProgress, Note: "the second one"},
	} {
		_, _, err := s.MoveStep(agent, m)
		assert.Equal(t, document.CodeNotApproved, document.CodeOf(err), "%+v: %v", m, err)
	}
	p, step, err := s.MoveStep(agent, StepMove{Name: "p", Step: 2, State: document.StepPending, Note: "the second one"})
	require.NoError(t, err)
	assert.Equal(t, commented.Revision+1, p.Revision, "only the reply was written")
	assert.Equal(t, body, p.Content)
	assert.Equal(t, document.StepPending, step.State)
	assert.Empty(t, step.Holder)
	require.Len(t, p.Comments, 1)
	assert.Equal(t, "the second one", p.Comments[0].Answer)
	assert.Equal(t, "worker", p.Comments[0].AnsweredBy)
	_, _, err = s.MoveStep(agent, StepMove{Name: "p", Step: 2, State: document.StepPending, Note: "again"})
	assert.Equal(t, document.CodeNotApproved, document.CodeOf(err), "nothing left to answer")
}

// A reply to a comment needs no approval and no legal transition: on a plan nobody gates, or
// one approved, an agent's note on a pending or a completed step that names its state
// answers the comment and moves nothing.
func TestANoteOnlyReplyAnswersOnAPlanThatMayMove(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] a\n- [ ] b\n- [x] c\n"
	s, _, agent := commentedPlan(t, ctx, body, 2, 3)
	for _, m := range []StepMove{
		{Name: "p", Step: 2, State: document.StepPending, Note: "b is needed"},
		{Name: "p", Step: 3, State: document.StepCompleted, Note: "c was done first"},
	} {
		p, step, err := s.MoveStep(agent, m)
		require.NoError(t, err, "%+v", m)
		assert.Equal(t, body, p.Content, "nothing moves")
		assert.Equal(t, m.State, step.State)
	}
	p, err := s.Get(ctx, "p")
	require.NoError(t, err)
	require.Len(t, p.Comments, 2)
	for _, c := range p.Comments {
		assert.NotEmpty(t, c.Answer, "step %d answered", c.Step)
	}
	assert.Empty(t, document.OpenCommentsOf(p))
}

// commentedPlan is a Store holding plan "p" of body with a comment of person ana on each of
// steps, the plan as the last comment left it, and the context of an agent's call.
func commentedPlan(t *testing.T, ctx context.Context, body string, steps ...int) (*Store, *document.Plan, context.Context) {
	t.Helper()
	s := storeOn(t, memfs.New(), "")
	p, err := s.Put(ctx, Update{Name: "p", Content: &body})
	require.NoError(t, err)
	for _, step := range steps {
		p, err = s.Put(document.WithActor(ctx, "ana"), Update{Name: "p", Comment: &api.Comment{Step: step, Text: "Why?"}})
		require.NoError(t, err)
	}
	return s, p, context.WithValue(document.WithActor(ctx, "worker"), document.AgentCallKey{}, true)
}
