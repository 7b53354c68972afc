package engine

import (
	"slices"
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
