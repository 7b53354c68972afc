package engine

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/einoplan/plan/internal/document"
)

// StepMove asks to move one checklist step of an existing plan.
type StepMove struct {
	Name string
	// Step is the step's number, from 1; 0 with State in_progress takes the first ready
	// pending step (every step it waits for completed or skipped), whatever changed since
	// IfRevision, so agents taking work never collide. When pending steps remain but none is
	// ready, that is CodeStepBlocked naming what they wait for.
	Step  int
	State document.StepState
	// Note is appended to the step's line (after " — ") when not empty. On a move that keeps
	// a step in progress (a renewal, a takeover) it replaces the note the previous such move
	// appended, so renewals never grow a plan; never text that was there otherwise.
	Note string
	// Evidence is what shows the step is done (a command and its exit code, test counts, a
	// link, an artifact's hash), for a move to completed, failed or skipped: one paragraph of
	// at most 1,000 bytes, line breaks read as spaces, written after the note as
	// " — evidence: …" and read back as Step.Evidence.
	Evidence string
	// Cost is what the step cost while its holder worked on it (the middleware measures it),
	// written with a move to completed, failed or skipped as " — cost: …", before the
	// evidence, and read back as Step.Cost. nil writes none.
	Cost *document.StepCost
	// IfRevision guards the move like Update.IfRevision, with one difference: a revision
	// older than the plan's that is still kept in history moves the step anyway when the
	// changes since cannot have made the move wrong, because the list of steps (their text
	// and order) is unchanged and the step itself is unchanged or still allows the move (with
	// a Note: unchanged, or held by the mover). Every plan records the revision at which
	// its steps last changed, so this needs history only to look at the step itself. So
	// agents moving different steps never conflict; a move after the steps were reordered,
	// added or reworded is refused.
	IfRevision *int64
	// By is the agent moving the step: a step it moves to in_progress ends with its tag
	// " (@By)" and is held by it. "" means the actor of the context (a tool call's agent, or
	// WithActor); with none, the move holds nothing, and moves a step someone holds only
	// with Takeover.
	By string
	// Takeover moves a step that another agent holds. With State in_progress it hands the
	// step to By, to nobody when By is "" (the step stays in progress), and the history names
	// the context's actor as who did it: a host's takeover for an agent that stopped. A step
	// whose hold expired (StoreConfig.ClaimTTL) moves without it. By moving its own
	// in_progress step to in_progress again, its holder renews its hold.
	Takeover bool
}

// MoveStep moves a checklist step as m says, atomically with the checks: a step held by
// another agent is CodeStepHeld (naming the holder) unless m.Takeover; a step moved to
// in_progress or completed while steps it waits for are not completed or skipped is
// CodeStepBlocked (naming them in Error.Waits); a stale IfRevision is
// CodeRevisionConflict unless the move commutes with the changes since (see StepMove). It
// returns the plan and the updated step.
func (s *Store) MoveStep(ctx context.Context, m StepMove) (*document.Plan, document.Step, error) {
	by := m.By
	switch {
	case m.Takeover && m.State == document.StepInProgress:
		// a takeover hands the step to By, or to nobody; the history names the context's actor
	case by == "":
		by = document.ActorOf(ctx)
	case document.ActorOf(ctx) == "":
		ctx = document.WithActor(ctx, by) // the history names who moved it
	}
	return s.moveStep(ctx, m, document.StepHold{By: document.HolderName(by), Takeover: m.Takeover})
}

func (s *Store) moveStep(ctx context.Context, m StepMove, hold document.StepHold) (*document.Plan, document.Step, error) {
	if err := document.CheckNote(m.Note); err != nil {
		return nil, document.Step{}, err
	}
	m.Evidence = document.FoldEvidence(m.Evidence)
	if err := checkMoveEvidence(m); err != nil {
		return nil, document.Step{}, err
	}
	var step document.Step
	p, err := s.mutateCommuting(ctx, document.ActionStep, m.Name, m.IfRevision, s.stepCommutes(m, hold), func(cur *document.Plan) (*document.Plan, error) {
		if cur == nil {
			return nil, notFound(m.Name)
		}
		steps := document.StepsOf(cur.Content)
		now := s.Now().UTC()
		number := m.Step
		c := hold
		if number == 0 && m.State == document.StepInProgress {
			next, ok := document.ExpiredStep(cur, steps, s.holdTTL, now)
			if !ok || next.Holder == c.By {
				next, ok = document.NextFreeStep(steps)
			}
			if !ok {
				if waits := document.BlockingSteps(steps); len(waits) > 0 {
					return nil, s.withLease(document.Fail(document.Error{Code: document.CodeStepBlocked, Reason: document.ReasonNoReadyStep, Name: cur.Name, CurrentRevision: cur.Revision, Waits: waits}), cur, steps)
				}
				return nil, document.Fail(document.Error{Code: document.CodeIllegalTransition, Reason: document.ReasonNoPendingStep, Name: cur.Name, CurrentRevision: cur.Revision})
			}
			number = next.Number
		}
		expired := ""
		if number >= 1 && number <= len(steps) {
			switch st := steps[number-1]; {
			case st.Holder != "" && st.Holder != c.By && document.HoldExpired(cur, st, s.holdTTL, now):
				expired, c.Takeover = st.Holder, true // its holder stopped renewing it
			case st.Holder != "" && st.Holder == c.By && m.State == document.StepInProgress && !c.Takeover:
				c.Renew = true
			}
		}
		keepsInProgress := m.State == document.StepInProgress && number >= 1 && number <= len(steps) && steps[number-1].State == document.StepInProgress
		if keepsInProgress {
			c.RenewalNote = document.RenewalNoteSize(cur.RenewalNotes, number)
		}
		c, err := proofHold(ctx, cur, steps, number, m, c)
		if err != nil {
			return nil, err
		}
		body, updated, err := document.SetStep(cur.Content, number, m.State, m.Note, c)
		if err != nil {
			var e *document.Error
			if errors.As(err, &e) && e.Code == document.CodeStepHeld {
				e.Name, e.CurrentRevision = cur.Name, cur.Revision
				e.Next = nextAfter(steps, number)
			}
			return nil, s.withLease(err, cur, steps)
		}
		if err := checkReady(cur, steps, number, m.State); err != nil {
			return nil, s.withLease(err, cur, steps)
		}
		if err := checkAgentSkip(ctx, cur, steps, number, m.State); err != nil {
			return nil, err
		}
		if err := s.checkContent(body); err != nil {
			return nil, err
		}
		step = updated
		next := *cur
		next.Content = body
		if m.State == document.StepInProgress {
			next.Holds = document.WithHold(cur.Holds, number, now) // a new hold, or its holder's renewal
		}
		switch note := strings.TrimSpace(m.Note); {
		case keepsInProgress && note != "":
			next.RenewalNotes = document.WithRenewalNote(cur.RenewalNotes, number, len(document.StepNoteSep)+len(note))
		case !keepsInProgress:
			next.RenewalNotes = document.WithRenewalNote(cur.RenewalNotes, number, 0)
		}
		if expired != "" {
			next.ExpiredHold = strconv.Itoa(number) + " " + expired
		}
		return &next, nil
	})
	if err != nil {
		return nil, document.Step{}, s.explainTaken(ctx, err, m.Name, m.Step, hold.By)
	}
	s.notify(ctx, document.ActionStep, p, false)
	return p, step, nil
}

func NextOf(steps []document.Step) *document.Step {
	if n, ok := document.NextFreeStep(steps); ok {
		return &n
	}
	return nil
}

// checkReady refuses to start or finish step number of cur (steps parsed from it) while
// steps it waits for are not completed or skipped: CodeStepBlocked naming them in Waits. A
// step in progress moved to in_progress again (a renewal, a takeover, a release) starts
// nothing, so it is never refused: a rewrite that renumbered its prerequisites cannot
// leave a hold that nobody can renew or release.
func checkReady(cur *document.Plan, steps []document.Step, number int, to document.StepState) error {
	if to != document.StepInProgress && to != document.StepCompleted || number < 1 || number > len(steps) {
		return nil
	}
	if to == document.StepInProgress && steps[number-1].State == document.StepInProgress {
		return nil
	}
	waits := document.WaitsOf(steps, steps[number-1])
	if waits == nil {
		return nil
	}
	return document.Fail(document.Error{Code: document.CodeStepBlocked, Reason: document.ReasonStepBlocked, Name: cur.Name, CurrentRevision: cur.Revision,
		Step: number, From: steps[number-1].State, To: to, Waits: waits, Next: nextAfter(steps, number)})
}

// checkAgentSkip refuses an agent's skip of step number of cur (steps parsed from it) while
// other steps wait for it, when the plan is under the approval requirement: skipping it
// would start what a person approved to run only after it. Only a person (a change through
// the Store's API, not a plan tool's call) skips such a step. CodeIllegalTransition names
// the steps that wait in Waits.
func checkAgentSkip(ctx context.Context, cur *document.Plan, steps []document.Step, number int, to document.StepState) error {
	if to != document.StepSkipped || number < 1 || number > len(steps) || !document.ByAgent(ctx) || !document.Gated(ctx, cur) {
		return nil
	}
	var waiting []int
	for _, st := range steps {
		if (st.State == document.StepPending || st.State == document.StepInProgress) && slices.Contains(st.After, number) {
			waiting = append(waiting, st.Number)
		}
	}
	if waiting == nil {
		return nil
	}
	return document.Fail(document.Error{Code: document.CodeIllegalTransition, Reason: document.ReasonSkipAwaited, Name: cur.Name, CurrentRevision: cur.Revision,
		Step: number, From: steps[number-1].State, To: to, Waits: waiting})
}

// nextAfter is the step to point an agent at after it was refused step number: the first
// ready pending step after it, else the first ready one. Agents refused together (they all went
// for the same step) so spread out instead of all trying the same step again.
func nextAfter(steps []document.Step, number int) *document.Step {
	for _, s := range steps {
		if s.Number > number && s.State == document.StepPending && document.WaitsOf(steps, s) == nil {
			return &s
		}
	}
	return NextOf(steps)
}

// rebase decides a change whose ifRevision want is older than cur: commutes judges it, and
// when it cannot (errUnknownBase) the stale error stands.
func (s *Store) rebase(ctx context.Context, cur *document.Plan, curRaw string, want int64, commutes commuteFunc, stale error) error {
	var e *document.Error
	if commutes == nil || cur == nil || want > cur.Revision || !errors.As(stale, &e) || e.Reason != document.ReasonStale {
		return stale
	}
	if err := document.CheckFence(ctx, cur, want); err != nil {
		return err // a person's change is read before anything goes past it
	}
	if err := commutes(ctx, want, cur, curRaw); err != errUnknownBase {
		return err
	}
	return stale
}

// errUnknownBase: a commuteFunc cannot judge a change against the revision it was based on.
var errUnknownBase = document.ErrString("the revision a change was based on is no longer kept")

// keptRevisionOf is revision want of the plan at cur while history keeps it, else nil.
func (s *Store) keptRevisionOf(ctx context.Context, cur *document.Plan, curRaw string, want int64) (*document.Plan, error) {
	base, err := s.revisionAt(ctx, cur, want)
	if document.CodeOf(err) == document.CodeNotFound {
		return nil, nil
	}
	return base, err
}

// statusUnchanged lets a status change made on an older revision through while nobody has
// changed the status since.
func (s *Store) statusUnchanged(ctx context.Context, want int64, cur *document.Plan, curRaw string) error {
	base, err := s.keptRevisionOf(ctx, cur, curRaw, want)
	if err != nil {
		return err
	}
	if base == nil || base.Status != cur.Status {
		return errUnknownBase
	}
	return nil
}

// stepCommutes judges a step move made on revision want against the plan now (StepMove).
// The list of steps is known unchanged since want when the plan's steps revision is not
// newer, without reading history; otherwise history is read back to want and each change
// since is judged as stepsRevision judges it (listKept). History is also read to compare the
// step itself (a note, a move its state no longer allows).
func (s *Store) stepCommutes(m StepMove, c document.StepHold) commuteFunc {
	return func(ctx context.Context, want int64, cur *document.Plan, curRaw string) error {
		if m.Step == 0 {
			return nil // the next free step, chosen from the plan as it is
		}
		now := document.StepsOf(cur.Content)
		// was are the steps of revision want, read from history once, when needed.
		var was []document.Step
		kept, listKept, looked := false, false, false
		baseSteps := func() error {
			if !looked {
				looked = true
				var err error
				if was, listKept, kept, err = s.stepsSince(ctx, cur, want); err != nil {
					return err
				}
			}
			if !kept {
				return errUnknownBase
			}
			return nil
		}
		if cur.StepsRev == 0 || cur.StepsRev > want {
			if err := baseSteps(); err != nil {
				return err
			}
			if !listKept {
				return document.Fail(document.Error{Code: document.CodeRevisionConflict, Reason: document.ReasonStepsChanged, Name: cur.Name, CurrentRevision: cur.Revision, Revision: want})
			}
		}
		if m.Step < 1 || m.Step > len(now) {
			return nil // setStep names the missing step
		}
		n := now[m.Step-1]
		switch {
		case c.By != "" && n.Holder == c.By:
			return nil // its own step
		case n.Holder != "" && !c.Takeover && !document.HoldExpired(cur, n, s.holdTTL, s.Now()):
			return nil // setStep refuses it as held (an expired hold is taken over: judged below)
		case n.AwaitingReview && m.State == document.StepCompleted:
			// A review completes what its reviewer saw awaiting review: judged below.
		case m.Note == "" && (document.CheckTransition(n.State, m.State) == nil || c.Takeover && n.State == document.StepInProgress && m.State == document.StepInProgress):
			return nil
		}
		if err := baseSteps(); err != nil {
			return err
		}
		if m.Step <= len(was) && was[m.Step-1].State == n.State && was[m.Step-1].Text == n.Text {
			return nil // the step itself is unchanged: setStep judges the move
		}
		e := document.Error{Code: document.CodeRevisionConflict, Reason: document.ReasonStepMoved, Name: cur.Name, CurrentRevision: cur.Revision,
			Revision: want, Step: m.Step, From: n.State, To: m.State, Agent: s.whoMoved(ctx, cur, want, m.Step), Next: nextAfter(now, m.Step)}
		if e.Agent == "" {
			e.Reason = document.ReasonStepChanged
		}
		return document.Fail(e)
	}
}

// stepsSince returns the steps of revision want of cur (kept false when history no longer
// has every revision from want to cur), and whether each change since kept the list of
// steps as stepsRevision judges a change: a step move always does (only the Store writes
// its marker, note and tag); any other change (a rewrite, an edited approval, an edit by
// hand, which records no change) only when every step keeps its text and nesting. So a
// rewrite that moves a step and appends " — text" rewords it, though its line reads like a
// move's.
func (s *Store) stepsSince(ctx context.Context, cur *document.Plan, want int64) (was []document.Step, listKept, kept bool, err error) {
	if want == cur.Revision {
		return document.StepsOf(cur.Content), true, true, nil
	}
	if want < s.oldestShown(cur.Revision) || want > cur.Revision || !s.historyOn() {
		return nil, false, false, nil
	}
	revs, err := s.keptHistory(ctx, cur, want)
	if err != nil || revs[len(revs)-1].rev != want {
		return nil, false, false, err
	}
	listKept = true
	newer := document.StepsOf(cur.Content)
	for i := 1; i < len(revs); i++ {
		older := document.StepsOf(revs[i].plan.Content)
		if revs[i-1].plan.Action != document.ActionStep && !sameStepTexts(older, newer) {
			listKept = false
		}
		newer = older
	}
	return newer, listKept, true, nil
}

// SameStepList reports whether the steps now are those of was, in the same order and
// nesting: each with the same text, or, for a step whose state changed, with the text the
// Store's moves give it (a note appended after " — ", a holder's tag), as for a step whose
// holder changed (a takeover).
func SameStepList(was, now []document.Step) bool {
	if len(was) != len(now) {
		return false
	}
	for i, b := range was {
		n := now[i]
		if n.Depth != b.Depth {
			return false
		}
		if n.Text == b.Text || n.WithoutHolder() == b.WithoutHolder() {
			continue
		}
		rest, ok := strings.CutPrefix(n.Text, b.WithoutHolder())
		if b.WithoutHolder() == "" {
			rest = " " + rest // a step with no text: the note or tag starts the text
		}
		moved := n.State != b.State || n.Holder != b.Holder
		if !moved || !ok || !(strings.HasPrefix(rest, document.StepNoteSep) || strings.HasPrefix(rest, " (@")) {
			return false
		}
	}
	return true
}

// whoMoved names the agent whose change first altered step number after revision since,
// from the kept history; "" when the history does not say.
func (s *Store) whoMoved(ctx context.Context, cur *document.Plan, since int64, number int) string {
	kept, err := s.keptHistory(ctx, cur, since)
	if err != nil {
		return ""
	}
	var prev *document.Step
	for i := len(kept) - 1; i >= 0; i-- {
		steps := document.StepsOf(kept[i].plan.Content)
		if number > len(steps) {
			break
		}
		st := steps[number-1]
		if prev != nil && (st.State != prev.State || st.Text != prev.Text) {
			return kept[i].plan.ChangedBy
		}
		prev = &st
	}
	return ""
}
