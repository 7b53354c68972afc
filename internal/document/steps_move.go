package document

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// A step move (SetStep) writes a step's new state on its line, with its note, holder tag,
// cost, evidence and review mark.

// CheckTransition returns nil exactly for pending → in_progress, completed, failed or
// skipped and for in_progress → completed or failed. Every other pair of valid states,
// including a state to itself, is a CodeIllegalTransition naming both states; an unknown
// state is CodeInvalidArgument.
func CheckTransition(from, to StepState) error {
	for _, st := range [...]StepState{from, to} {
		if _, err := ParseStepState(string(st)); err != nil {
			return err
		}
	}
	switch {
	case from == to:
		return Fail(Error{Code: CodeIllegalTransition, Reason: reasonSameState, From: from, To: to})
	case from == StepPending:
		return nil
	case from == StepInProgress && (to == StepCompleted || to == StepFailed):
		return nil
	case from == StepInProgress:
		return Fail(Error{Code: CodeIllegalTransition, Reason: reasonInProgressOnly, From: from, To: to})
	default:
		return Fail(Error{Code: CodeIllegalTransition, Reason: reasonFinalState, From: from, To: to})
	}
}

// setStepState moves step number (1-based) of body to state to, changing only that step's
// marker character and, when the trimmed note is non-empty, appending " — " and the note to
// the end of the step's line, before its line ending. Every other byte of body is kept.
// It returns the new body and the step as ParseSteps reads it from the new body.
// A number out of range, an unknown state, or a note containing a line break or longer than
// maxStepNoteLen bytes is CodeInvalidArgument; a move CheckTransition refuses is
// CodeIllegalTransition. On error newBody is "". Holders are neither checked nor written:
// the Store does that (see Step.Holder).
func setStepState(body string, number int, to StepState, note string) (newBody string, updated Step, err error) {
	return SetStep(body, number, to, note, StepHold{})
}

// CheckNote is the one check of a step note, wherever it comes from: one line of valid
// UTF-8, at most maxStepNoteLen bytes once trimmed, that cannot read as evidence or a cost.
func CheckNote(note string) error {
	note = strings.TrimSpace(note)
	switch {
	case len(note) > MaxStepNoteLen:
		return Fail(Error{Code: CodeInvalidArgument, Reason: ReasonTooLong, Field: FieldNote, Size: int64(len(note)), Limit: MaxStepNoteLen})
	case !utf8.ValidString(note):
		return Fail(Error{Code: CodeInvalidArgument, Reason: ReasonNotUTF8, Field: FieldNote})
	case strings.ContainsAny(note, "\r\n"):
		return Fail(Error{Code: CodeInvalidArgument, Reason: reasonNoteMultiline, Field: FieldNote})
	case strings.Contains(StepNoteSep+note, evidenceSep) || strings.Contains(StepNoteSep+note, costSep) || strings.Contains(StepNoteSep+note, observedSep):
		// Only a move's own evidence and cost are read back as Step.Evidence and Step.Cost.
		return Fail(Error{Code: CodeInvalidArgument, Reason: reasonNoteProof, Field: FieldNote, Value: note})
	}
	return nil
}

// StepHold is who moves a step: by holds the steps it moves to in_progress ("" holds
// nothing); takeover lets by move a step someone else holds; renew lets the holder of a step
// in progress move it to in_progress again, keeping it.
type StepHold struct {
	By       string
	Takeover bool
	Renew    bool // by holds the step and moves it to in_progress again: it keeps it
	// RenewalNote is the size of the note at the end of the step's text that a move keeping
	// it in progress with a note replaces (steps_renewal.go); 0 for none.
	RenewalNote int
	// Evidence is written after the note by a move that leaves in_progress; review says
	// whether the move completes into review or completes a review (steps_review.go), which
	// reviewer does.
	Evidence string
	Cost     *StepCost
	Review   reviewMove
	Reviewer string
	// Observed is the mark of the call that proves a "(proof …)" step done (ObservedMark),
	// written before the cost; "" for none.
	Observed string
}

// SetStep is setStepState that also checks and writes holders: a step held by another agent
// is CodeStepHeld unless taken over; a step moved to in_progress ends with by's tag; taking
// over a step in progress with to in_progress only changes its holder.
func SetStep(body string, number int, to StepState, note string, c StepHold) (newBody string, updated Step, err error) {
	if _, err := ParseStepState(string(to)); err != nil {
		return "", Step{}, err
	}
	note = strings.TrimSpace(note)
	if err := CheckNote(note); err != nil {
		return "", Step{}, err
	}

	var it ScannedStep
	found := false
	n := scanSteps(body, func(s ScannedStep) bool {
		if s.Step.Number == number {
			it, found = s, true
			return false
		}
		return true
	})
	if !found {
		return "", Step{}, Fail(Error{Code: CodeInvalidArgument, Reason: reasonStepMissing, Field: "step", Step: number, Steps: n})
	}
	if _, tag := SplitHolder(note); tag != "" {
		// Only the Store writes holder tags: a note ending like one could name a holder once
		// the Store's own tag after it is gone (a release, a finished step).
		return "", Step{}, Fail(Error{Code: CodeInvalidArgument, Reason: reasonNoteTag, Field: FieldNote, Value: note})
	}
	readHolder(&it.Step)
	holder := it.Step.Holder
	if holder != "" && holder != c.By && !c.Takeover {
		return "", Step{}, Fail(Error{Code: CodeStepHeld, Reason: reasonStepHeld, Step: number, Agent: holder, From: it.Step.State, To: to})
	}
	// Taking over a step in progress hands it to by; anything else must be a legal move.
	reassign := (c.Takeover || c.Renew) && it.Step.State == StepInProgress && to == StepInProgress
	if reassign && holder == c.By && !c.Renew {
		// Handing a step to whoever holds it changes nothing but would grow its line.
		return "", Step{}, Fail(Error{Code: CodeIllegalTransition, Reason: reasonSameState, Step: number, From: it.Step.State, To: to})
	}
	if !reassign {
		if err := CheckTransition(it.Step.State, to); err != nil {
			var e *Error
			if errors.As(err, &e) {
				withStep := *e
				withStep.Step = number
				return "", Step{}, Fail(withStep)
			}
			return "", Step{}, err
		}
	}

	// tail is the line after the marker: "]", then " text" when there is a text.
	tail := body[it.Marker+1 : it.End]
	if c.Review == ReviewDone {
		tail, _ = cutReviewMark(tail)
	}
	if c.Review == ReviewInto {
		tail = withoutHoldTag(tail) // nobody holds it now; the review mark names its doer
	}
	if to == StepInProgress && it.Step.State == StepInProgress {
		tail = withoutHoldTag(tail) // the Store's own tag, or its "held by nobody" mark
		if note != "" {
			tail = withoutRenewalNote(tail, c.RenewalNote) // replaced, not added to
		}
	}
	var b strings.Builder
	b.Grow(len(body) + len(StepNoteSep) + len(note) + len(c.By) + 4)
	b.WriteString(body[:it.Marker])
	marker := MarkerOf(to)
	if c.Review == ReviewInto {
		marker = MarkerOf(StepInProgress)
	}
	b.WriteByte(marker)
	start := b.Len()
	b.WriteString(tail)
	if note != "" {
		b.WriteString(StepNoteSep)
		b.WriteString(note)
	}
	writeProof(&b, c)
	if to == StepInProgress {
		b.WriteString(holdTag(c.By, b.String()[start:]))
	}
	end := b.Len()
	b.WriteString(body[it.End:])
	newBody = b.String()

	updated = it.Step
	updated.State = StateOf(marker)
	updated.Text = strings.TrimPrefix(newBody[start+1:end], " ")
	readHolder(&updated)
	readSuffixes(&updated)
	readProof(&updated)
	was := it.Step
	readSuffixes(&was)
	if k := changedSuffix(&was, &updated); k != nil {
		// The note ends, or a later note will leave it ending, like a suffix: a move changes a
		// step's state, never what its own text says of it (what it waits for, the tools a
		// person approved, what it asks for).
		return "", Step{}, Fail(Error{Code: CodeInvalidArgument, Reason: k.noteReason, Field: FieldNote, Value: note, Step: number})
	}
	return newBody, updated, nil
}

// writeProof writes what a move adds after a step's note: what the host observed, its cost,
// its evidence, then the review mark.
func writeProof(b *strings.Builder, c StepHold) {
	if c.Observed != "" {
		b.WriteString(observedSep)
		b.WriteString(c.Observed)
	}
	if c.Cost != nil {
		b.WriteString(costSep)
		b.WriteString(c.Cost.String())
	}
	if c.Evidence != "" {
		b.WriteString(evidenceSep)
		b.WriteString(c.Evidence)
	}
	switch c.Review {
	case ReviewInto:
		b.WriteString(awaitingMark(c.By))
	case ReviewDone:
		b.WriteString(reviewDoneMark(c.Reviewer))
	}
}

// A body written whole (a rewrite, an import) may keep holder tags, never add one.

// CheckNoNewHolds refuses a body written whole (a rewrite, an import, an edited approval)
// that would hold a step: only a step move writes holder tags, so each line ending in one
// must be a line cur already had, state and text alike, and no more often than cur had it.
// A step's text thus never names a holder that no move made, whatever its state, a copied
// line never makes a second hold, and a later move cannot turn either into one.
func CheckNoNewHolds(name string, cur *Plan, body string) error {
	if err := checkNoNewObservations(name, cur, body); err != nil {
		return err // nor an observation mark (steps_proof.go)
	}
	if !strings.Contains(body, "(@") {
		return nil
	}
	var kept map[string]int // how many of cur's lines have this state + text, tagged or not
	for _, st := range StepsOf(body) {
		if _, h := SplitHolder(st.Text); h == "" {
			continue
		}
		if kept == nil {
			kept = map[string]int{}
			if cur != nil {
				for _, c := range StepsOf(cur.Content) {
					kept[holdKey(c)]++
				}
			}
		}
		line := holdKey(st)
		if kept[line] == 0 {
			return Fail(Error{Code: CodeInvalidArgument, Reason: reasonHoldInText, Name: name, Field: FieldContent, Step: st.Number, Value: st.Text})
		}
		kept[line]--
	}
	return nil
}

// holdKey is what a rewrite must keep of a step for its holder's tag to stay: its state and
// text, a budget it names and the cost the middleware wrote aside, so a person raises a step's
// budget without releasing it, and a rewrite may leave a finished step's cost out.
func holdKey(s Step) string {
	text := withoutBudget(s.Text)
	if c := costOf(text); c != nil {
		text = strings.Replace(text, costSep+c.String(), "", 1)
	}
	return string(s.State) + "\n" + text
}
