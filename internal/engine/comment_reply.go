package engine

import (
	"context"
	"slices"

	"github.com/einoplan/plan/internal/document"
)

// An agent answers a person's comment on a step with update_plan_step's note. On a plan the
// approval requirement keeps from moving (not approved), the move is refused, yet the
// comments must be answered before the plan can be asked for again (comments_open): a
// note-only reply, a move that names the step's own state with a note and nothing else, then
// records the note as the answer to the open comments on that step and changes nothing else
// (no hold, no state, no text of the body). Anything else stays refused as not_approved.

// replyByNote is the outcome of MoveStep for the move m by hold, which the step-move checks
// decided as p, st and err: unchanged, unless err refused a note-only reply of an agent on a
// plan not approved (not_approved), which it then writes (answerByNote).
func (s *Store) replyByNote(ctx context.Context, m StepMove, hold document.StepHold, p *document.Plan, st document.Step, err error) (*document.Plan, document.Step, error) {
	if err == nil || document.CodeOf(err) != document.CodeNotApproved || !noteOnly(ctx, m) {
		return p, st, err
	}
	return s.answerByNote(ctx, m, hold, err)
}

// noteOnly reports whether m, a move of an agent, carries a note and nothing a move of the
// step would write besides (evidence, cost, a takeover, the next step).
func noteOnly(ctx context.Context, m StepMove) bool {
	return document.ByAgent(ctx) && m.Note != "" && m.Step >= 1 && m.Evidence == "" && m.Cost == nil && !m.Next && !m.Takeover &&
		document.CheckNote(m.Note) == nil
}

// answerByNote writes m's note as the answer to the open comments on its step, when the
// plan, read under its lock, is still not approved under the requirement, the step is in
// m's state, and a comment on it is open; refused is the answer otherwise.
func (s *Store) answerByNote(ctx context.Context, m StepMove, hold document.StepHold, refused error) (*document.Plan, document.Step, error) {
	var step document.Step
	p, err := s.mutate(ctx, document.ActionStep, m.Name, m.IfRevision, func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil || cur.Approval != nil || !document.Gated(ctx, cur) {
			return nil, refused
		}
		steps := document.StepsOf(cur.Content)
		open := slices.ContainsFunc(document.OpenCommentsOf(cur), func(c document.Comment) bool { return c.Step == m.Step })
		if m.Step > len(steps) || steps[m.Step-1].State != m.State || !open {
			return nil, refused
		}
		step = steps[m.Step-1]
		next := *cur
		document.AnswerByNote(&next, m.Step, m.Note, hold.By, s.Now().UTC())
		return &next, nil
	})
	if err != nil {
		return nil, document.Step{}, err
	}
	s.notify(ctx, document.ActionStep, p, false)
	return p, step, nil
}
