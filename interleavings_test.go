package plan_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// stepWorker is an agent that takes the next free step, then finishes it, always naming the
// last revision it saw and never reading the plan unless it has run out of steps to try.
type stepWorker struct {
	name     string
	rng      *rand.Rand
	lastRev  int64
	next     int // the step it will try to take; 0: look for one
	holding  int
	finished bool
}

// tally counts what the workers of one session achieved.
type tally struct {
	mu        sync.Mutex
	successes int
	claims    map[int][]string // step → who claimed it
	finishes  map[int][]string // step → who finished it
	refusals  []string
}

func (w *stepWorker) act(ctx context.Context, t *testing.T, s *plan.Store, name string, tl *tally) {
	if w.holding == 0 && w.next == 0 {
		p, err := s.Get(ctx, name)
		require.NoError(t, err)
		w.lastRev = p.Revision
		next, ok := plan.NextStep(plan.ParseSteps(p.Content))
		if !ok {
			w.finished = true
			return
		}
		w.next = next.Number
	}
	m := plan.StepMove{Name: name, By: w.name, IfRevision: &w.lastRev}
	if w.holding != 0 {
		m.Step, m.State = w.holding, plan.StepCompleted
		if w.rng.IntN(4) == 0 {
			m.State, m.Note = plan.StepFailed, "could not"
		}
	} else {
		m.Step, m.State = w.next, plan.StepInProgress
	}
	p, _, err := s.MoveStep(ctx, m)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if err == nil {
		tl.successes++
		w.lastRev = p.Revision
		if w.holding != 0 {
			tl.finishes[w.holding] = append(tl.finishes[w.holding], w.name)
			w.holding = 0
		} else {
			tl.claims[m.Step] = append(tl.claims[m.Step], w.name)
			w.holding, w.next = m.Step, 0
		}
		if next, ok := plan.NextStep(plan.ParseSteps(p.Content)); ok && w.holding == 0 {
			w.next = next.Number
		}
		return
	}
	var pe *plan.Error
	require.True(t, errors.As(err, &pe), "%v", err)
	// The only refusals: the step was taken by someone else since.
	if pe.Reason != "step_held" && pe.Reason != "step_moved" {
		tl.refusals = append(tl.refusals, fmt.Sprintf("%s step %d: %v", w.name, m.Step, err))
	}
	require.NotEqual(t, w.holding, m.Step, "a holder is never refused its own step: %v", err)
	w.lastRev, w.next = pe.CurrentRevision, 0
	if pe.Next != nil {
		w.next = pe.Next.Number
	}
}

func checkSession(t *testing.T, s *plan.Store, name string, steps int, tl *tally) {
	t.Helper()
	assert.Empty(t, tl.refusals, "no conflicts but on the same step")
	p, err := s.Get(context.Background(), name)
	require.NoError(t, err)
	assert.EqualValues(t, 1+tl.successes, p.Revision, "revision = 1 + successful changes")
	final := plan.ParseSteps(p.Content)
	require.Len(t, final, steps)
	for _, st := range final {
		assert.Contains(t, []plan.StepState{plan.StepCompleted, plan.StepFailed}, st.State, "step %d ends in one final state", st.Number)
		require.Len(t, tl.claims[st.Number], 1, "step %d taken once", st.Number)
		require.Len(t, tl.finishes[st.Number], 1, "step %d finished once", st.Number)
		assert.Equal(t, tl.claims[st.Number][0], tl.finishes[st.Number][0], "step %d finished by its holder", st.Number)
		assert.True(t, strings.Contains(st.Text, "(@"+tl.claims[st.Number][0]+")"), "the plan names who did step %d: %q", st.Number, st.Text)
	}
}

func newSession(t *testing.T, backend plan.Backend, steps int) (*plan.Store, *tally) {
	t.Helper()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("# Work\n")
	for i := 1; i <= steps; i++ {
		fmt.Fprintf(&b, "- [ ] part %d\n", i)
	}
	body := b.String()
	_, err = s.Put(context.Background(), plan.Update{Name: "work", Content: &body, IfRevision: new(int64)})
	require.NoError(t, err)
	return s, &tally{claims: map[int][]string{}, finishes: map[int][]string{}}
}

// Any interleaving of K workers' moves, chosen by a seeded scheduler, ends with every step
// taken once, finished once by its holder, and the revision counting every success.
func TestAnyInterleavingOfStepMoves(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		k, steps := 2+rng.IntN(4), 3+rng.IntN(12)
		s, tl := newSession(t, plan.NewMemoryBackend(), steps)
		workers := make([]*stepWorker, k)
		for i := range workers {
			workers[i] = &stepWorker{name: fmt.Sprintf("w%d", i+1), rng: rng, lastRev: 1, next: 1}
		}
		for moves := 0; ; moves++ {
			require.Less(t, moves, 20*steps*k, "seed %d: the session ends", seed)
			var live []*stepWorker
			for _, w := range workers {
				if !w.finished {
					live = append(live, w)
				}
			}
			if len(live) == 0 {
				break
			}
			live[rng.IntN(len(live))].act(ctx, t, s, "work", tl)
		}
		checkSession(t, s, "work", steps, tl)
		if t.Failed() {
			t.Fatalf("seed %d (k=%d, steps=%d)", seed, k, steps)
		}
	}
}

// The same with real concurrency: workers in goroutines on a LocalBackend.
func TestConcurrentStepMovesOnLocalBackend(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 3; seed++ {
		s, tl := newSession(t, newLocal(t, t.TempDir()), 24)
		var wg sync.WaitGroup
		for i := range 4 {
			w := &stepWorker{name: fmt.Sprintf("w%d", i+1), rng: rand.New(rand.NewPCG(seed, uint64(i))), lastRev: 1, next: 1}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; !w.finished && n < 500; n++ {
					w.act(ctx, t, s, "work", tl)
				}
			}()
		}
		wg.Wait()
		checkSession(t, s, "work", 24, tl)
	}
}
