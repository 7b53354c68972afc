package engine

import (
	"slices"
	"strings"
	"sync"

	"github.com/einoplan/plan/internal/document"
)

// What the host observed under each hold: the calls an agent made, while it held a step, of
// the tools the step names in "(uses …)" or "(proof …)" (the middleware records them). They
// live in this process's memory, shared by every Store on the storage, and start empty
// whenever a hold starts through one of them; a completion of a "(proof …)" step reads them
// (checkProof). A hold taken in another process starts nothing here: its calls are observed
// by the process that saw them.

// keptObservations is how many calls a hold keeps, the last ones; maxObservedHolds how many
// holds keep any, beyond which the oldest record is dropped.
const (
	keptObservations = 8
	maxObservedHolds = 1024
)

type observedKey struct {
	plan   string
	step   int
	holder string
}

// observationLog is the calls observed under each hold; its zero value is ready.
type observationLog struct {
	mu    sync.Mutex
	holds map[observedKey][]document.Observation
	order []observedKey // the keys, oldest record first
}

// Observe records o, a call holder made while it held step number of plan name.
func (s *Store) Observe(name string, number int, holder string, o document.Observation) {
	if holder == "" || number < 1 {
		return
	}
	l := &s.shared.observed
	k := observedKey{name, number, holder}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.holds == nil {
		l.holds = map[observedKey][]document.Observation{}
	}
	had, ok := l.holds[k]
	if !ok {
		if len(l.order) >= maxObservedHolds {
			delete(l.holds, l.order[0])
			l.order = l.order[1:]
		}
		l.order = append(l.order, k)
	}
	had = append(had, o)
	if len(had) > keptObservations {
		had = slices.Clone(had[len(had)-keptObservations:])
	}
	l.holds[k] = had
}

// Observed is what was observed under holder's hold of step number of plan name, oldest
// first: a copy; nil for nothing.
func (s *Store) Observed(name string, number int, holder string) []document.Observation {
	l := &s.shared.observed
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.holds[observedKey{name, number, holder}])
}

// forgetObserved empties the record of holder's hold of step number of plan name: its hold
// starts anew, or ended.
func (s *Store) forgetObserved(name string, number int, holder string) {
	l := &s.shared.observed
	k := observedKey{name, number, holder}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.holds[k]; !ok {
		return
	}
	delete(l.holds, k)
	if i := slices.Index(l.order, k); i >= 0 {
		l.order = slices.Delete(l.order, i, i+1)
	}
}

// The rules of a step move that concern proof and who finishes a step others wait for: one
// entry each in moveChecks.

// checkProof starts an empty record of what the host observes under a hold the move starts
// (observations.go), and refuses an agent's completion of a "(proof …)" step unless the
// host saw, under the mover's hold, a passing call of a proof tool after its last call of
// the step's other "(uses …)" tools (document.Proven): CodeUnproven, naming the tools to call
// in Value. A completion it saw one for writes that call's mark on the step's line. A
// person's completion (the Store's API), and a review's, need none.
func checkProof(mv *stepMove) error {
	st, ok := mv.step()
	if !ok || mv.observed == nil {
		return nil
	}
	c := &mv.hold
	if mv.move.State == document.StepInProgress && !c.Renew {
		mv.observed.forgetObserved(mv.plan.Name, mv.number, c.By)
		return nil
	}
	if mv.move.State != document.StepCompleted || len(st.Proof) == 0 || c.Review == document.ReviewDone || !document.ByAgent(mv.ctx) {
		return nil
	}
	if st.State != document.StepPending && st.State != document.StepInProgress {
		return nil // finished already: the transition check refuses the move, saying so
	}
	proof, proven := document.Proven(st, mv.observed.Observed(mv.plan.Name, mv.number, c.By))
	if !proven {
		return &document.Error{Code: document.CodeUnproven, Reason: document.ReasonUnproven, Name: mv.plan.Name, CurrentRevision: mv.plan.Revision,
			Step: mv.number, From: st.State, To: mv.move.State, Value: strings.Join(st.Proof, ", ")}
	}
	c.Observed = document.ObservedMark(proof)
	return nil
}

// checkAgentFail refuses an agent's move to failed of a step it does not hold while other
// steps wait for it: a failed step blocks them, so only its holder or a person (the Store's
// API) fails it. A step awaiting review may be failed by an agent that may review it.
// CodeIllegalTransition names the steps that wait in Waits.
func checkAgentFail(mv *stepMove) error {
	st, ok := mv.step()
	if mv.move.State != document.StepFailed || !ok || !document.ByAgent(mv.ctx) {
		return nil
	}
	by := mv.hold.By
	if st.Holder != "" && st.Holder == by || st.AwaitingReview && !document.SameAgent(st.DoneBy, by) {
		return nil
	}
	waiting := mv.awaitedBy()
	if waiting == nil {
		return nil
	}
	return &document.Error{Code: document.CodeIllegalTransition, Reason: document.ReasonFailAwaited, Name: mv.plan.Name, CurrentRevision: mv.plan.Revision,
		Step: mv.number, From: st.State, To: document.StepFailed, Waits: waiting}
}
