package engine

import (
	"context"
	"testing"
	"time"

	"github.com/einoplan/plan/internal/document"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The checks of a step move run in the order moveChecks documents, those on the move alone
// before those that read the plan.
func TestMoveChecksRunInTheirDocumentedOrder(t *testing.T) {
	want := []string{"note", "evidence", "plan", "reply", "approval", "next", "hold", "review", "proof", "transition", "after", "skip", "fail", "size"}
	var names []string
	onPlan := false
	for _, c := range moveChecks {
		names = append(names, c.name)
		assert.False(t, onPlan && !c.onPlan, "check %q on the move alone runs after one that reads the plan", c.name)
		onPlan = onPlan || c.onPlan
	}
	assert.Equal(t, want, names)
}

// Each check of a step move that refuses does so with its own code and reason, which
// refuseMove renders into the move's error.
func TestEachMoveCheckRefusesWithItsOwnReason(t *testing.T) {
	agent := document.WithAgentActor(context.Background(), "w1")
	gated := document.WithStepGate(agent)
	plan := func(body string) *document.Plan {
		return &document.Plan{Name: "p", Revision: 3, Content: body}
	}
	tests := []struct {
		check  string
		ctx    context.Context
		move   StepMove
		plan   *document.Plan // nil with read: no plan
		read   bool
		steps  func([]document.Step) // adjusts the steps read from the plan
		limit  int
		code   document.Code
		reason string
	}{
		{check: "note", move: StepMove{Note: "a\nb"}, code: document.CodeInvalidArgument, reason: "note_multiline"},
		{check: "evidence", move: StepMove{State: document.StepInProgress, Evidence: "ran"}, code: document.CodeInvalidArgument, reason: document.ReasonEvidenceState},
		{check: "plan", read: true, code: document.CodeNotFound, reason: document.ReasonNoPlan},
		{check: "approval", ctx: gated, read: true, plan: plan("- [ ] a\n"), move: StepMove{Step: 1, State: document.StepCompleted},
			code: document.CodeNotApproved, reason: document.ReasonNotApproved},
		{check: "next", read: true, plan: plan("- [x] a\n"), move: StepMove{State: document.StepInProgress},
			code: document.CodeIllegalTransition, reason: document.ReasonNoPendingStep},
		{check: "review", ctx: agent, read: true, plan: plan("- [ ] a\n"), move: StepMove{Step: 1, State: document.StepCompleted},
			steps: func(s []document.Step) { s[0].AwaitingReview, s[0].DoneBy = true, "w1" },
			code:  document.CodeIllegalTransition, reason: document.ReasonReviewOwn},
		{check: "transition", read: true, plan: plan("- [x] a\n"), move: StepMove{Step: 1, State: document.StepInProgress},
			code: document.CodeIllegalTransition, reason: "final_state"},
		{check: "after", read: true, plan: plan("- [ ] a\n- [ ] b (after 1)\n"), move: StepMove{Step: 2, State: document.StepInProgress},
			code: document.CodeStepBlocked, reason: document.ReasonStepBlocked},
		{check: "skip", ctx: gated, read: true, plan: plan("- [ ] a\n- [ ] b (after 1)\n"), move: StepMove{Step: 1, State: document.StepSkipped},
			code: document.CodeIllegalTransition, reason: document.ReasonSkipAwaited},
		{check: "size", read: true, plan: plan("- [ ] a\n"), move: StepMove{Step: 1, State: document.StepCompleted}, limit: 4,
			code: document.CodeTooLarge, reason: document.ReasonContentTooLarge},
	}
	checks := map[string]moveCheck{}
	for _, c := range moveChecks {
		checks[c.name] = c
	}
	s := &Store{}
	for _, tt := range tests {
		t.Run(tt.check, func(t *testing.T) {
			c, ok := checks[tt.check]
			require.True(t, ok)
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			mv := &stepMove{ctx: ctx, move: tt.move, hold: document.StepHold{By: document.ActorOf(ctx)}, maxContent: 1 << 20}
			if tt.limit > 0 {
				mv.maxContent = tt.limit
			}
			if tt.read {
				mv = mv.onPlan(tt.plan, time.Now())
			}
			if tt.steps != nil {
				tt.steps(mv.steps)
			}
			if c.name == "size" {
				mv.body = tt.plan.Content // what the transition wrote
			}
			err := s.refuseMove(mv, c.run(mv))
			var e *document.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.code, e.Code)
			assert.Equal(t, tt.reason, e.Reason)
			assert.NotEmpty(t, e.Message)
		})
	}
}

// A hold that ran out is taken over by the move, which refuses nothing for it.
func TestTheHoldCheckTakesOverAnExpiredHold(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cur := &document.Plan{Name: "p", Revision: 2, Content: "- [~] a (@w1)\n", UpdatedAt: now.Add(-time.Hour)}
	mv := (&stepMove{ctx: context.Background(), move: StepMove{Step: 1, State: document.StepCompleted}, hold: document.StepHold{By: "w2"}, ttl: time.Minute}).onPlan(cur, now)
	require.Equal(t, "w1", mv.steps[0].Holder)
	for _, c := range moveChecks {
		if c.name == "hold" {
			require.NoError(t, c.run(mv))
		}
	}
	assert.True(t, mv.hold.Takeover)
	assert.Equal(t, "w1", mv.expired)
}
