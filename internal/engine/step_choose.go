package engine

import (
	"errors"
	"strings"

	"github.com/einoplan/plan/internal/document"
)

// Which step a move chooses when it names none. A move that finishes a step (completed,
// failed or skipped) and names no step finishes the
// one step its mover holds in progress: chosen on the plan as read under its lock, in the
// same read-modify-write as the move, so it costs no read of its own. A mover that holds
// none, or several, is told so and nothing is written.

// maxHeldShown bounds the step numbers a held_steps refusal lists.
const maxHeldShown = 8

// HeldStep is the number of the one step holder holds in progress among steps of plan p;
// a refusal naming p when holder holds none (no_held_step) or several (held_steps).
func HeldStep(p *document.Plan, steps []document.Step, holder string) (int, error) {
	var held []int
	for _, s := range steps {
		if holder != "" && s.State == document.StepInProgress && s.Holder == holder {
			held = append(held, s.Number)
		}
	}
	switch len(held) {
	case 1:
		return held[0], nil
	case 0:
		return 0, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNoHeldStep, Field: "step",
			Name: p.Name, CurrentRevision: p.Revision, Agent: holder})
	}
	shown := document.FormatSteps(held[:min(len(held), maxHeldShown)])
	if len(held) > maxHeldShown {
		shown += ", …"
	}
	return 0, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonHeldSteps, Field: "step",
		Name: p.Name, CurrentRevision: p.Revision, Agent: holder, Size: int64(len(held)), Value: shown})
}

// chooseHeld picks the step a finishing move of no step number finishes: the one its mover
// holds in progress.
func chooseHeld(mv *stepMove) error {
	n, err := HeldStep(mv.plan, mv.steps, mv.hold.By)
	mv.number = n
	return err
}

// PlanNames is names as a refusal lists them: the first few, then "…".
func PlanNames(names []string) string {
	if len(names) > maxHeldShown {
		return strings.Join(names[:maxHeldShown], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}

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
