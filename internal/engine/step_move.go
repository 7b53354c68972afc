package engine

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan/internal/document"
)

// A step move: whether a step may move is decided here, by one ordered list of checks
// (moveChecks) run over one value (stepMove); the Store then writes what they built.

// MoveStep is plan.Store.MoveStep, whose doc comment is the contract.
func (s *Store) MoveStep(ctx context.Context, m StepMove) (*document.Plan, document.Step, error) {
	p, moved, took, err := s.MoveStepTaking(ctx, m)
	if took.Number != 0 {
		return p, took, err
	}
	return p, moved, err
}

// MoveStepTaking is MoveStep that returns both the step the move moved (the one it named,
// or the one it chose: the next free one, or the mover's own) and, with Next, the step it
// took after it (Number 0 when none was ready).
func (s *Store) MoveStepTaking(ctx context.Context, m StepMove) (p *document.Plan, moved, took document.Step, err error) {
	by := m.By
	switch {
	case m.Takeover && m.State == document.StepInProgress:
		// a takeover hands the step to By, or to nobody; the history names the context's actor
	case by == "":
		by = document.ActorOf(ctx)
	case document.ActorOf(ctx) == "":
		ctx = document.WithActor(ctx, by) // the history names who moved it
	}
	hold := document.StepHold{By: document.HolderName(by), Takeover: m.Takeover}
	return s.moveStep(ctx, m, hold)
}

// moveStep decides the move m by hold (decideMove) and writes it: the checks on the move alone
// before the plan is read, the others on the plan as read under its lock.
func (s *Store) moveStep(ctx context.Context, m StepMove, hold document.StepHold) (*document.Plan, document.Step, document.Step, error) {
	mv := &stepMove{ctx: ctx, move: m, hold: hold, ttl: s.holdTTL, maxContent: s.maxContent, observed: s}
	if err := s.decideMove(mv); err != nil {
		return nil, document.Step{}, document.Step{}, err
	}
	m = mv.move // its evidence folded
	var step, took document.Step
	p, err := s.mutateCommuting(ctx, document.ActionStep, m.Name, m.IfRevision, s.stepCommutes(m, hold), func(cur *document.Plan) (*document.Plan, error) {
		try := mv.onPlan(cur, s.Now().UTC())
		if err := s.decideMove(try); err != nil {
			return nil, err
		}
		if try.replyOnly {
			step = try.steps[try.number-1]
			next := *cur
			document.AnswerByNote(&next, try.number, m.Note, hold.By, try.now)
			return &next, nil
		}
		step, took = try.updated, document.Step{}
		next := try.next()
		if document.ByAgent(ctx) {
			document.AnswerByNote(next, try.number, m.Note, hold.By, try.now) // a reply to the step's comments
		}
		if !m.Next {
			return next, nil
		}
		take, err := s.takeNext(try, next)
		if err != nil || take == nil {
			return next, err
		}
		took = take.updated
		return take.next(), nil
	})
	if err != nil {
		return nil, document.Step{}, document.Step{}, s.explainTaken(ctx, err, m.Name, m.Step, hold.By)
	}
	s.notify(ctx, document.ActionStep, p, false)
	if m.State != document.StepInProgress {
		s.forgetObserved(m.Name, step.Number, hold.By) // the hold ended
	}
	if took.Number != 0 {
		s.forgetObserved(m.Name, took.Number, hold.By) // the hold starts anew
	}
	return p, step, took, nil
}

// updateStep moves checklist step number (1-based) of an existing plan to state, appending
// note to the step's line when given. It returns the plan and the updated step. The agent
// the context carries (a tool call's) holds the steps it moves to in_progress, and a step
// another agent holds is CodeStepHeld. An ifRevision older than the plan still moves the step
// when the changes since cannot have made the move wrong (see StepMove).
func (s *Store) updateStep(ctx context.Context, name string, number int, state document.StepState, note string, ifRevision *int64) (*document.Plan, document.Step, error) {
	return s.MoveStep(ctx, StepMove{Name: name, Step: number, State: state, Note: note, IfRevision: ifRevision})
}

// stepMove is what the checks of a move read, and what they build for the write: the move
// and its mover's hold, the Store's lease and content limits, and, once read under the lock,
// the plan, its steps and the clock.
type stepMove struct {
	ctx        context.Context
	move       StepMove
	hold       document.StepHold // who moves it; the checks add takeover, renewal, evidence, review
	ttl        time.Duration     // HoldTTL: how long a hold lasts unrenewed
	maxContent int
	observed   *Store // what the host observed under each hold (observations.go)

	read  bool           // the plan was read: the checks that need it run
	plan  *document.Plan // as read; nil when there is none
	steps []document.Step
	now   time.Time

	number          int    // the step moved: the move's, or the next free one
	replyOnly       bool   // a note answering comments on a plan not approved: nothing else moves
	expired         string // the holder whose hold on it ran out, taken over by this move
	keepsInProgress bool   // a step in progress moved to in_progress again

	body    string        // the plan's body with the step moved
	updated document.Step // the step as moved
}

// onPlan is a fresh copy of mv, before the checks on the move alone ran, for one try of the
// move on cur (nil: no plan) at now.
func (mv *stepMove) onPlan(cur *document.Plan, now time.Time) *stepMove {
	try := *mv
	try.read, try.plan, try.now, try.number = true, cur, now, mv.move.Step
	if cur != nil {
		try.steps = document.StepsOf(cur.Content)
	}
	return &try
}

// the step moved, and whether it is one of the plan's.
func (mv *stepMove) step() (document.Step, bool) {
	if mv.number < 1 || mv.number > len(mv.steps) {
		return document.Step{}, false
	}
	return mv.steps[mv.number-1], true
}

// A moveCheck is one rule a move must pass. It returns nil to let the move go on, or why it
// may not: the facts of a refusal (a document.Error without its Message, which refuseMove
// renders) or a refusal that package document made. onPlan checks read the plan.
type moveCheck struct {
	name   string
	onPlan bool
	run    func(*stepMove) error
}

// moveChecks are the rules of a step move, run in this order; the first refusal is the move's.
// On the move alone, before the plan is read:
//
//  1. note: the note is one line of valid UTF-8, short, that reads as neither evidence nor cost;
//  2. evidence: evidence (folded to one line) and cost are well formed and come with a move
//     that finishes the step (completed, failed or skipped), and so does Next (the take
//     Next adds is decided by these same checks, on the plan as the move left it).
//
// On the plan as read under its lock:
//
//  3. plan: the plan exists;
//     reply: an agent's note on a step with an open comment, naming the state the step is
//     in and nothing else to write, is a reply only: the note answers the comments and
//     nothing else moves, approved or not (but a renewal of the mover's own step in
//     progress on a plan that may move, which answers as well); no check after it runs;
//  4. approval: under the approval requirement, the plan is approved;
//  5. next: a move of no step number to in_progress takes the next free step (an expired
//     hold first), and is refused when none is pending or every pending one waits; one that
//     finishes a step finishes the one its mover holds in progress (step_choose.go);
//  6. hold: a hold that ran out unrenewed is taken over; its holder renews its own hold;
//  7. review: the move writes its evidence and cost, completes into review or completes a
//     review; an agent does not complete the review of its own work, nor of another run of
//     itself;
//  8. transition: on the step's line (document.SetStep), the step exists, the note does not
//     end like a holder's tag, no other agent holds the step (but by a takeover), the state
//     transition is legal, and the note leaves what the step's text says of it as it was;
//  9. after: the steps it waits for ("(after …)") are completed or skipped;
//  10. skip: under the approval requirement, an agent does not skip a step others wait for;
//  11. size: the moved plan is within the Store's content limit.
//
// After review, proof: a hold the move starts is observed anew, and an agent completes a
// "(proof …)" step only on a fresh passing call the host saw under its hold, whose mark the
// move writes (observations.go). After skip, fail: an agent marks a step others wait for
// failed only while it holds it. A new rule is one more entry.
var moveChecks = []moveCheck{
	{"note", false, checkNote},
	{"evidence", false, checkMoveEvidence},
	{"plan", true, checkPlan},
	{"reply", true, checkReply},
	{"approval", true, checkApproval},
	{"next", true, chooseStep},
	{"hold", true, checkHold},
	{"review", true, checkReview},
	{"proof", true, checkProof},
	{"transition", true, checkTransition},
	{"after", true, checkReady},
	{"skip", true, checkAgentSkip},
	{"fail", true, checkAgentFail},
	{"size", true, checkSize},
}

// decideMove runs the checks of moveChecks that read what mv has (the move alone, or the
// plan too once read) in order, and returns the first refusal (refuseMove).
func (s *Store) decideMove(mv *stepMove) error {
	for _, c := range moveChecks {
		if c.onPlan != mv.read {
			continue
		}
		if err := c.run(mv); err != nil {
			return s.refuseMove(mv, err)
		}
		if mv.replyOnly {
			return nil
		}
	}
	return nil
}

// refuseMove is the one place a check's refusal becomes the move's error: facts get their
// Message; a step held by another names the plan and the step to go for instead; a held or
// blocked step says when the hold in its way runs out (withLease).
func (s *Store) refuseMove(mv *stepMove, err error) error {
	var e *document.Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Message == "" {
		e = document.Fail(*e)
		err = e
	}
	if mv.plan == nil {
		return err
	}
	if e.Code == document.CodeStepHeld {
		e.Name, e.CurrentRevision = mv.plan.Name, mv.plan.Revision
		e.Next = document.NextAfter(mv.steps, mv.number)
	}
	return s.withLease(err, mv.plan, mv.steps)
}

// finishes reports whether a move to st finishes a step: the moves that take evidence and a
// cost.
func finishes(st document.StepState) bool {
	return st == document.StepCompleted || st == document.StepFailed || st == document.StepSkipped
}

func checkNote(mv *stepMove) error {
	return document.CheckNote(mv.move.Note)
}

// checkMoveEvidence folds the move's evidence onto one line and refuses evidence that cannot
// be written, or on a move that finishes nothing.
func checkMoveEvidence(mv *stepMove) error {
	m := &mv.move
	if err := checkNextFinishes(mv); err != nil {
		return err
	}
	m.Evidence = document.FoldEvidence(m.Evidence)
	if m.Cost != nil && (!document.ValidCost(*m.Cost) || !finishes(m.State)) {
		return &document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonCostInvalid, Name: m.Name, Step: m.Step, To: m.State}
	}
	if m.Evidence == "" {
		return nil
	}
	if !finishes(m.State) {
		return &document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonEvidenceState, Field: document.FieldEvidence, Name: m.Name, Step: m.Step, To: m.State}
	}
	return document.CheckEvidence(m.Evidence)
}

func checkPlan(mv *stepMove) error {
	if mv.plan == nil {
		return &document.Error{Code: document.CodeNotFound, Reason: document.ReasonNoPlan, Name: mv.move.Name}
	}
	return nil
}

// checkReply makes a move that only replies to a person's comment a reply only (replyOnly):
// comments are answered before a plan can be put to a person again, so a reply needs
// neither an approval nor a legal transition. A note on the mover's step in progress, on a
// plan that may move, stays a renewal, which answers too.
func checkReply(mv *stepMove) error {
	if !mv.repliesToComment() {
		return nil
	}
	st, _ := mv.step()
	movable := mv.plan.Approval != nil || !document.Gated(mv.ctx, mv.plan)
	mv.replyOnly = !movable || st.State != document.StepInProgress
	return nil
}

// checkApproval refuses a move on a plan that is not approved, when the context or the plan
// asks for it (Config.RequireApproval). It runs under the plan's lock, so the approval it
// sees is the one the move lands on.
func checkApproval(mv *stepMove) error {
	if mv.plan.Approval != nil || !document.Gated(mv.ctx, mv.plan) {
		return nil
	}
	return &document.Error{Code: document.CodeNotApproved, Reason: document.ReasonNotApproved, Name: mv.move.Name, CurrentRevision: mv.plan.Revision}
}

// repliesToComment reports whether mv, a move of an agent, carries a note and nothing a move
// of the step would write besides (evidence, cost, a takeover, the next step), names its
// step in the state it is in, and that step has an open comment.
func (mv *stepMove) repliesToComment() bool {
	m := mv.move
	if !document.ByAgent(mv.ctx) || m.Note == "" || m.Evidence != "" || m.Cost != nil || m.Next || m.Takeover {
		return false
	}
	st, ok := mv.step()
	return ok && st.State == m.State && slices.ContainsFunc(document.OpenCommentsOf(mv.plan), func(c document.Comment) bool { return c.Step == st.Number })
}

// chooseStep picks the step a move to in_progress of no step number takes: one whose hold
// ran out (not the mover's), else the next free one; a finishing move of no step number
// finishes the one step its mover holds (chooseHeld).
func chooseStep(mv *stepMove) error {
	if mv.number == 0 && finishes(mv.move.State) {
		return chooseHeld(mv)
	}
	if mv.number != 0 || mv.move.State != document.StepInProgress {
		return nil
	}
	cur, steps := mv.plan, mv.steps
	next, ok := document.ExpiredStep(cur, steps, mv.ttl, mv.now)
	if !ok || next.Holder == mv.hold.By {
		next, ok = document.NextFreeStep(steps)
	}
	if !ok {
		if waits := document.BlockingSteps(steps); len(waits) > 0 {
			return &document.Error{Code: document.CodeStepBlocked, Reason: document.ReasonNoReadyStep, Name: cur.Name, CurrentRevision: cur.Revision, Waits: waits}
		}
		return &document.Error{Code: document.CodeIllegalTransition, Reason: document.ReasonNoPendingStep, Name: cur.Name, CurrentRevision: cur.Revision}
	}
	mv.number = next.Number
	return nil
}

// checkHold takes over a step whose holder stopped renewing it, and lets the holder of a
// step in progress renew it, replacing the note its last renewal wrote.
func checkHold(mv *stepMove) error {
	st, ok := mv.step()
	if !ok {
		return nil
	}
	c := &mv.hold
	switch {
	case st.Holder != "" && st.Holder != c.By && document.HoldExpired(mv.plan, st, mv.ttl, mv.now):
		mv.expired, c.Takeover = st.Holder, true
	case st.Holder != "" && st.Holder == c.By && mv.move.State == document.StepInProgress && !c.Takeover:
		c.Renew = true
	}
	mv.keepsInProgress = mv.move.State == document.StepInProgress && st.State == document.StepInProgress
	if mv.keepsInProgress {
		c.RenewalNote = document.RenewalNoteSize(mv.plan.RenewalNotes, mv.number)
	}
	return nil
}

// checkReview adds to the hold what a move writes beyond the step's state: the evidence and
// cost, and for a step asking for review, whether the move completes it into review (its
// doer, an agent) or completes the review (anyone else). An agent completing a review of its
// own work, or of another run of itself ("worker·2" of "worker"), is CodeIllegalTransition
// (review_own).
func checkReview(mv *stepMove) error {
	c := &mv.hold
	c.Evidence, c.Cost = mv.move.Evidence, mv.move.Cost
	st, ok := mv.step()
	if mv.move.State != document.StepCompleted || !ok {
		return nil
	}
	switch {
	case st.AwaitingReview && document.ByAgent(mv.ctx) && document.SameAgent(st.DoneBy, c.By):
		return &document.Error{Code: document.CodeIllegalTransition, Reason: document.ReasonReviewOwn, Name: mv.plan.Name, CurrentRevision: mv.plan.Revision,
			Step: mv.number, From: st.State, To: mv.move.State, Agent: st.DoneBy, Next: document.NextAfter(mv.steps, mv.number)}
	case st.AwaitingReview:
		c.Review, c.Reviewer = document.ReviewDone, c.By
		if c.Reviewer == "" {
			c.Reviewer = document.HolderName(document.ActorOf(mv.ctx))
		}
	case st.Review && document.ByAgent(mv.ctx):
		c.Review = document.ReviewInto
	}
	return nil
}

// checkTransition moves the step on its line, which document.SetStep refuses when the step is
// missing, held by another, or cannot go to the move's state, or when the note would change
// what the step's text says.
func checkTransition(mv *stepMove) error {
	var err error
	mv.body, mv.updated, err = document.SetStep(mv.plan.Content, mv.number, mv.move.State, mv.move.Note, mv.hold)
	return err
}

// checkReady refuses to start or finish the step while steps it waits for are not completed
// or skipped: CodeStepBlocked naming them in Waits. A step in progress moved to in_progress
// again (a renewal, a takeover, a release) starts nothing, so it is never refused: a rewrite
// that renumbered its prerequisites cannot leave a hold that nobody can renew or release.
func checkReady(mv *stepMove) error {
	to := mv.move.State
	st, ok := mv.step()
	if to != document.StepInProgress && to != document.StepCompleted || !ok {
		return nil
	}
	if to == document.StepInProgress && st.State == document.StepInProgress {
		return nil
	}
	waits := document.WaitsOf(mv.steps, st)
	if waits == nil {
		return nil
	}
	return &document.Error{Code: document.CodeStepBlocked, Reason: document.ReasonStepBlocked, Name: mv.plan.Name, CurrentRevision: mv.plan.Revision,
		Step: mv.number, From: st.State, To: to, Waits: waits, Next: document.NextAfter(mv.steps, mv.number)}
}

// checkAgentSkip refuses an agent's skip of the step while other steps wait for it, when the
// plan is under the approval requirement: skipping it would start what a person approved to
// run only after it. Only a person (a change through the Store's API, not a plan tool's call)
// skips such a step. CodeIllegalTransition names the steps that wait in Waits.
func checkAgentSkip(mv *stepMove) error {
	st, ok := mv.step()
	if mv.move.State != document.StepSkipped || !ok || !document.ByAgent(mv.ctx) || !document.Gated(mv.ctx, mv.plan) {
		return nil
	}
	waiting := mv.awaitedBy()
	if waiting == nil {
		return nil
	}
	return &document.Error{Code: document.CodeIllegalTransition, Reason: document.ReasonSkipAwaited, Name: mv.plan.Name, CurrentRevision: mv.plan.Revision,
		Step: mv.number, From: st.State, To: document.StepSkipped, Waits: waiting}
}

// awaitedBy lists the steps not yet finished that wait for the moving step ("(after N)").
func (mv *stepMove) awaitedBy() []int {
	var waiting []int
	for _, w := range mv.steps {
		if (w.State == document.StepPending || w.State == document.StepInProgress) && slices.Contains(w.After, mv.number) {
			waiting = append(waiting, w.Number)
		}
	}
	return waiting
}

func checkSize(mv *stepMove) error {
	return checkContent(mv.body, mv.maxContent)
}

// next is the plan the move writes: the moved body, the step's hold time (a new hold, or its
// holder's renewal), the size of the note a renewal keeps replacing, and whose hold ran out.
func (mv *stepMove) next() *document.Plan {
	cur, number := mv.plan, mv.number
	next := *cur
	next.Content = mv.body
	if mv.move.State == document.StepInProgress {
		next.Holds = document.WithHold(cur.Holds, number, mv.now)
	}
	switch note := strings.TrimSpace(mv.move.Note); {
	case mv.keepsInProgress && note != "":
		next.RenewalNotes = document.WithRenewalNote(cur.RenewalNotes, number, len(document.StepNoteSep)+len(note))
	case !mv.keepsInProgress:
		next.RenewalNotes = document.WithRenewalNote(cur.RenewalNotes, number, 0)
	}
	if mv.expired != "" {
		next.ExpiredHold = strconv.Itoa(number) + " " + mv.expired
	}
	return &next
}

// NextOf is the next free step of steps; nil when none is.
func NextOf(steps []document.Step) *document.Step {
	return document.NextAfter(steps, 0)
}

// What a model needs to use leases: when a hold that stops it runs out, and, when its own
// hold ran out and another agent took the step, that this is what happened and who took it.

// withLease adds to a step_held or step_blocked refusal err, made on cur, when the hold
// that causes it runs out: the held step's, or the earliest among the held steps a blocked
// step waits for. Other errors are returned as they are.
func (s *Store) withLease(err error, cur *document.Plan, steps []document.Step) error {
	var e *document.Error
	if s.holdTTL <= 0 || !errors.As(err, &e) {
		return err
	}
	switch e.Code {
	case document.CodeStepHeld:
		if e.Step >= 1 && e.Step <= len(steps) {
			e.Expires = document.LeaseEnd(cur, steps[e.Step-1], s.holdTTL)
		}
	case document.CodeStepBlocked:
		for _, n := range e.Waits {
			if n < 1 || n > len(steps) {
				continue
			}
			if end := document.LeaseEnd(cur, steps[n-1], s.holdTTL); !end.IsZero() && (e.Expires.IsZero() || end.Before(e.Expires)) {
				e.Expires = end
			}
		}
	}
	return err
}

// HeldUntil is plan.Store.HeldUntil, whose doc comment is the contract.
func (s *Store) HeldUntil(p *document.Plan, number int) time.Time {
	if p == nil || number < 1 {
		return time.Time{}
	}
	steps := document.StepsOf(p.Content)
	if number > len(steps) {
		return time.Time{}
	}
	return document.LeaseEnd(p, steps[number-1], s.holdTTL)
}

// explainTaken is holdTaken for a refused move of step number of plan name, read again.
func (s *Store) explainTaken(ctx context.Context, err error, name string, number int, mover string) error {
	var e *document.Error
	if number < 1 || mover == "" || !errors.As(err, &e) || !refusedMove(e) || !s.keepsEntries() {
		return err
	}
	cur, _, lerr := s.load(ctx, name)
	if lerr != nil || cur == nil {
		return err
	}
	return s.holdTaken(ctx, err, cur, number, mover)
}

// holdTaken explains a refused move of step number of cur by mover, when mover held that
// step and its hold expired and another agent took it: the kept history has the revision
// that moved the step past mover's expired hold. It returns err unchanged otherwise.
func (s *Store) holdTaken(ctx context.Context, err error, cur *document.Plan, number int, mover string) error {
	var e *document.Error
	if mover == "" || !errors.As(err, &e) || !refusedMove(e) {
		return err
	}
	kept, kerr := s.keptHistory(ctx, cur, s.oldestShown(cur.Revision))
	if kerr != nil {
		return err
	}
	want := strconv.Itoa(number) + " " + mover
	for _, k := range kept {
		if k.plan.ExpiredHold != want {
			continue
		}
		steps := document.StepsOf(cur.Content)
		taken := document.Error{Code: e.Code, Reason: document.ReasonHoldTaken, Name: cur.Name, CurrentRevision: cur.Revision,
			Revision: k.rev, Step: number, To: e.To, Agent: k.plan.ChangedBy, Next: document.NextAfter(steps, number)}
		if number <= len(steps) {
			taken.From = steps[number-1].State
		}
		return document.Fail(taken)
	}
	return err
}

// refusedMove reports whether e refuses a step move for what the step is now: held by
// another, in a state that allows no such move, or moved since the mover's revision.
func refusedMove(e *document.Error) bool {
	return e.Code == document.CodeStepHeld || e.Code == document.CodeIllegalTransition ||
		e.Reason == document.ReasonStepMoved || e.Reason == document.ReasonStepChanged
}
