package engine

import (
	"errors"

	"github.com/einoplan/plan/internal/document"
)

// A move with Next finishes a step and, in the same write, takes for the same mover the
// step a move of no step number to in_progress would take, chosen on the plan as the
// finishing move left it (so a step that waited only for the finished one is ready). One
// revision, one history entry, one guarded write: a model's transition from one step to
// the next costs no turn of its own.

// checkNextFinishes refuses Next on a move that finishes nothing: it rides only with
// completed, failed or skipped.
func checkNextFinishes(mv *stepMove) error {
	if !mv.move.Next || finishes(mv.move.State) {
		return nil
	}
	m := mv.move
	return &document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNextState, Name: m.Name, Step: m.Step, To: m.State}
}

// takeNext decides, on done (the plan the finishing move fin built), the take of the next
// ready step by fin's mover. It returns nil and no error when no step is ready or pending:
// the finishing move is then written alone. Any other refusal refuses the whole move.
func (s *Store) takeNext(fin *stepMove, done *document.Plan) (*stepMove, error) {
	m := StepMove{Name: fin.move.Name, State: document.StepInProgress, By: fin.move.By}
	take := &stepMove{ctx: fin.ctx, move: m, hold: document.StepHold{By: fin.hold.By}, ttl: fin.ttl, maxContent: fin.maxContent}
	try := take.onPlan(done, fin.now)
	err := s.decideMove(try)
	var e *document.Error
	if errors.As(err, &e) && (e.Reason == document.ReasonNoReadyStep || e.Reason == document.ReasonNoPendingStep) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return try, nil
}
