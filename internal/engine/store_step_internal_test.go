package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stale move of a step number below 1 is refused, never a panic.
func TestStaleMoveOfAStepBelowOneIsRefused(t *testing.T) {
	ctx := context.Background()
	s, err := NewStore(&StoreConfig{Backend: memfs.New()})
	require.NoError(t, err)
	_, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] A\n")})
	require.NoError(t, err)
	_, err = s.SetStatus(ctx, "p", "go", nil)
	require.NoError(t, err)
	one := int64(1)
	_, _, err = s.updateStep(ctx, "p", -1, document.StepCompleted, "", &one)
	assert.Equal(t, document.CodeInvalidArgument, document.CodeOf(err))
}

// A plan file edited by hand (steps swapped, revision bumped, its steps_revision line left
// as it was) no longer vouches for its steps: a stale move is refused, not applied to the
// step that moved into its place.
func TestHandEditVoidsTheStepsRevision(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	s, err := NewStore(&StoreConfig{Backend: b, HistoryLimit: -1})
	require.NoError(t, err)
	_, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] A\n- [ ] B\n")})
	require.NoError(t, err)
	p, err := s.SetStatus(ctx, "p", "go", nil)
	require.NoError(t, err)
	require.EqualValues(t, 1, p.StepsRev)
	raw, _, err := s.readRaw(ctx, s.planPath("p"))
	require.NoError(t, err)
	edited := strings.Replace(strings.Replace(raw, "revision: 2", "revision: 3", 1), "- [ ] A\n- [ ] B\n", "- [ ] B\n- [ ] A\n", 1)
	require.Contains(t, edited, "steps_revision: 1")
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.planPath("p"), Content: edited}))
	two := int64(2)
	_, _, err = s.updateStep(ctx, "p", 1, document.StepCompleted, "", &two)
	assert.Equal(t, document.CodeRevisionConflict, document.CodeOf(err))
	q, err := s.Get(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, "- [ ] B\n- [ ] A\n", q.Content)
}

// A takeover with a note leaves the list of steps as it was.
func TestTakeoverWithANoteKeepsTheStepList(t *testing.T) {
	was := document.ParseSteps("- [~] design (@w1)\n- [ ] build\n")
	now := document.ParseSteps("- [~] design — w1 stopped (@w2)\n- [ ] build\n")
	if !SameStepList(was, now) {
		t.Fatal("a takeover with a note counted as a reworded step")
	}
	if SameStepList(was, document.ParseSteps("- [~] design it (@w2)\n- [ ] build\n")) {
		t.Fatal("a reworded step counted as a takeover")
	}
}

// A step with no text of its own, moved with a note or taken, keeps the list as it was.
func TestEmptyStepMovedKeepsTheStepList(t *testing.T) {
	was := document.ParseSteps("- [ ]\n- [ ] build\n")
	for _, now := range []string{"- [x] — done\n- [ ] build\n", "- [~] (@w1)\n- [ ] build\n"} {
		if !SameStepList(was, document.ParseSteps(now)) {
			t.Errorf("%q counted as a changed list", now)
		}
	}
}

const teamBody = "# Team\n- [ ] design\n- [ ] build\n- [ ] test\n- [ ] ship\n"

func newTeamStore(t *testing.T, cfg StoreConfig) (*Store, driver.Backend) {
	t.Helper()
	if cfg.Backend == nil {
		cfg.Backend = memfs.New()
	}
	s, err := NewStore(&cfg)
	require.NoError(t, err)
	body := teamBody
	_, err = s.Put(context.Background(), Update{Name: "team", Content: &body})
	require.NoError(t, err)
	return s, cfg.Backend
}

func move(t *testing.T, s *Store, m StepMove) (*document.Plan, document.Step, *document.Error) {
	t.Helper()
	m.Name = "team"
	p, step, err := s.MoveStep(context.Background(), m)
	if err == nil {
		return p, step, nil
	}
	var pe *document.Error
	require.True(t, errors.As(err, &pe), "%v", err)
	return nil, document.Step{}, pe
}

func rev(n int64) *int64 { return &n }

// A step moved to in_progress by an agent is held by it, as a (@name) tag people can read in
// the plan: no other agent can move it until its holder finishes it or it is taken over.
func TestClaimedStepIsHeldUntilItsHolderFinishesIt(t *testing.T) {
	s, backend := newTeamStore(t, StoreConfig{})
	ctx := context.Background()

	_, step, err := move(t, s, StepMove{Step: 2, State: document.StepInProgress, By: "worker-2"})
	require.Nil(t, err)
	assert.Equal(t, "worker-2", step.Holder)
	assert.Equal(t, "build (@worker-2)", step.Text)
	raw, rerr := backend.Read(ctx, &driver.ReadRequest{FilePath: "/plans/team.md", Offset: 1, Limit: 100})
	require.NoError(t, rerr)
	assert.Contains(t, raw.Content, "- [~] build (@worker-2)\n", "people read the holder in the plan")

	for _, to := range []document.StepState{document.StepCompleted, document.StepFailed, document.StepInProgress} {
		_, _, err = move(t, s, StepMove{Step: 2, State: to, By: "worker-3"})
		require.NotNil(t, err, to)
		assert.Equal(t, document.CodeStepHeld, err.Code)
		assert.Equal(t, "worker-2", err.Agent)
		require.NotNil(t, err.Next)
		assert.Equal(t, 3, err.Next.Number, "the error points at the next free step after the refused one")
	}
	p, err2 := s.Get(ctx, "team")
	require.NoError(t, err2)
	assert.EqualValues(t, 2, p.Revision, "refused moves write nothing")

	_, step, err = move(t, s, StepMove{Step: 2, State: document.StepCompleted, Note: "done", By: "worker-2"})
	require.Nil(t, err)
	assert.Equal(t, "build (@worker-2) — done", step.Text)
	assert.Empty(t, step.Holder, "a finished step is held by nobody")

	// A takeover by parameter completes a step someone else holds.
	_, _, err = move(t, s, StepMove{Step: 3, State: document.StepInProgress, By: "worker-2"})
	require.Nil(t, err)
	_, step, err = move(t, s, StepMove{Step: 3, State: document.StepFailed, By: "worker-3", Takeover: true})
	require.Nil(t, err)
	assert.Equal(t, document.StepFailed, step.State)

	// A host hands a held step over, then releases it.
	_, _, err = move(t, s, StepMove{Step: 4, State: document.StepInProgress, By: "worker-2"})
	require.Nil(t, err)
	_, step, err3 := s.MoveStep(ctx, StepMove{Name: "team", Step: 4, State: document.StepInProgress, By: "worker-4", Takeover: true})
	require.NoError(t, err3)
	assert.Equal(t, "ship (@worker-4)", step.Text)
	_, _, err = move(t, s, StepMove{Step: 4, State: document.StepCompleted, By: "worker-2"})
	require.NotNil(t, err)
	assert.Equal(t, "worker-4", err.Agent, "the old holder lost it")
	_, step, err3 = s.MoveStep(ctx, StepMove{Name: "team", Step: 4, State: document.StepInProgress, By: "", Takeover: true})
	require.NoError(t, err3)
	assert.Equal(t, "ship", step.Text)
	assert.Equal(t, document.StepInProgress, step.State)
	_, _, err = move(t, s, StepMove{Step: 4, State: document.StepCompleted, By: "worker-5"})
	require.Nil(t, err, "a released step is anyone's to finish")

	// A host without a name holds nothing and is not held back.
	_, step, err = move(t, s, StepMove{Step: 1, State: document.StepInProgress})
	require.Nil(t, err)
	assert.Equal(t, "design", step.Text)
}

// Moves of different steps made from an old revision all apply: agents that never read again
// still start and finish their own steps.
func TestStaleStepMovesOfOtherStepsApply(t *testing.T) {
	s, _ := newTeamStore(t, StoreConfig{})
	// Every worker read revision 1 and never reads again.
	for i, w := range []string{"w1", "w2", "w3", "w4"} {
		_, _, err := move(t, s, StepMove{Step: i + 1, State: document.StepInProgress, By: w, IfRevision: rev(1)})
		require.Nil(t, err, w)
	}
	for i, w := range []string{"w4", "w3", "w2", "w1"} {
		_, _, err := move(t, s, StepMove{Step: 4 - i, State: document.StepCompleted, Note: "ok", By: w, IfRevision: rev(1)})
		require.Nil(t, err, "a holder finishes its own step from an old revision, even with a note: %s", w)
	}
	p, err := s.Get(context.Background(), "team")
	require.NoError(t, err)
	assert.EqualValues(t, 9, p.Revision)
	assert.Equal(t, 4, document.Summarize(p).Progress.Completed)
}

// A stale move of a step someone else moved since is a revision_conflict that names who moved
// it, the state they left it in, and the next pending step.
func TestStaleMoveOfAStepSomeoneMovedNamesThem(t *testing.T) {
	s, _ := newTeamStore(t, StoreConfig{})
	moved := func(m StepMove) {
		t.Helper()
		_, _, err := move(t, s, m)
		require.Nil(t, err)
	}
	refused := func(m StepMove) *document.Error {
		t.Helper()
		_, _, err := move(t, s, m)
		require.NotNil(t, err)
		return err
	}
	moved(StepMove{Step: 2, State: document.StepCompleted, By: "w1", IfRevision: rev(1)})
	moved(StepMove{Step: 3, State: document.StepSkipped, By: "w3", IfRevision: rev(1)})

	err := refused(StepMove{Step: 2, State: document.StepSkipped, By: "w2", IfRevision: rev(1)})
	assert.Equal(t, document.CodeRevisionConflict, err.Code)
	assert.Equal(t, "step_moved", err.Reason)
	assert.Equal(t, "w1", err.Agent, "names who moved it, not the latest writer")
	assert.Equal(t, document.StepCompleted, err.From)
	require.NotNil(t, err.Next)
	assert.Equal(t, 4, err.Next.Number, "the first pending step after the refused one")

	// Both claim step 1 from revision 1: exactly one wins.
	moved(StepMove{Step: 1, State: document.StepInProgress, By: "w1", IfRevision: rev(1)})
	err = refused(StepMove{Step: 1, State: document.StepInProgress, By: "w2", IfRevision: rev(1)})
	assert.Equal(t, document.CodeStepHeld, err.Code)
	assert.Equal(t, "w1", err.Agent)

	// A note needs the step unchanged since the revision it was written against.
	moved(StepMove{Step: 4, State: document.StepInProgress, IfRevision: rev(1)})
	err = refused(StepMove{Step: 4, State: document.StepCompleted, Note: "shipped", By: "w2", IfRevision: rev(1)})
	assert.Equal(t, "step_changed", err.Reason, "moved by a host that named nobody")
	_, _, err = move(t, s, StepMove{Step: 4, State: document.StepCompleted, By: "w2", IfRevision: rev(1)})
	require.Nil(t, err, "without a note the move still fits the step's state")
}

// A stale move after the list of steps changed (reordered, added, reworded, removed) is a
// revision_conflict.
func TestStaleMoveAfterTheStepsChangedIsRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ name, body string }{
		{"reordered", "# Team\n- [ ] build\n- [ ] design\n- [ ] test\n- [ ] ship\n"},
		{"added", "# Team\n- [ ] plan\n- [ ] design\n- [ ] build\n- [ ] test\n- [ ] ship\n"},
		{"reworded", "# Team\n- [ ] design\n- [ ] build it twice\n- [ ] test\n- [ ] ship\n"},
		{"removed", "# Team\n- [ ] design\n- [ ] build\n- [ ] test\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTeamStore(t, StoreConfig{})
			body := tc.body
			_, err := s.Put(ctx, Update{Name: "team", Content: &body, IfRevision: rev(1)})
			require.NoError(t, err)
			_, _, perr := move(t, s, StepMove{Step: 2, State: document.StepCompleted, By: "w1", IfRevision: rev(1)})
			require.NotNil(t, perr)
			assert.Equal(t, document.CodeRevisionConflict, perr.Code)
			assert.Equal(t, "steps_changed", perr.Reason)
			assert.EqualValues(t, 2, perr.CurrentRevision)
			_, _, perr = move(t, s, StepMove{Step: 2, State: document.StepCompleted, By: "w1", IfRevision: rev(2)})
			require.Nil(t, perr, "after catching up the move applies")
		})
	}

	t.Run("other text changed", func(t *testing.T) {
		s, _ := newTeamStore(t, StoreConfig{})
		body := "# Team, renamed\nSome context.\n\n- [ ] design\n- [ ] build\n- [ ] test\n- [ ] ship\n"
		_, err := s.Put(ctx, Update{Name: "team", Content: &body, IfRevision: rev(1)})
		require.NoError(t, err)
		_, _, perr := move(t, s, StepMove{Step: 2, State: document.StepCompleted, By: "w1", IfRevision: rev(1)})
		require.Nil(t, perr, "text outside the steps does not change what step 2 is")
	})
}

// A stale status change applies while the status is what it was at that revision, and is a
// revision_conflict once it changed.
func TestStaleStatusChangeAppliesWhileTheStatusIsUnchanged(t *testing.T) {
	ctx := context.Background()
	s, _ := newTeamStore(t, StoreConfig{})
	_, _, perr := move(t, s, StepMove{Step: 1, State: document.StepCompleted, By: "w1"})
	require.Nil(t, perr)
	p, err := s.SetStatus(ctx, "team", "in-progress", rev(1))
	require.NoError(t, err)
	assert.EqualValues(t, 3, p.Revision)
	_, err = s.SetStatus(ctx, "team", "blocked", rev(2))
	assert.Equal(t, document.CodeRevisionConflict, document.CodeOf(err), "the status changed since revision 2")
}

// The plan records when its steps last changed, so a stale move needs no history to apply,
// even from a revision history no longer keeps; after the steps changed it is refused.
func TestStaleMovesPastTheKeptHistory(t *testing.T) {
	for _, limit := range []int{2, -1} {
		t.Run(fmt.Sprint("history ", limit), func(t *testing.T) {
			ctx := context.Background()
			s, _ := newTeamStore(t, StoreConfig{HistoryLimit: limit})
			_, _, perr := move(t, s, StepMove{Step: 1, State: document.StepInProgress, By: "w1", IfRevision: rev(1)})
			require.Nil(t, perr)
			for i := range 3 {
				_, err := s.SetStatus(ctx, "team", fmt.Sprint("s", i), nil)
				require.NoError(t, err)
			}
			_, _, perr = move(t, s, StepMove{Step: 2, State: document.StepCompleted, By: "w2", IfRevision: rev(1)})
			require.Nil(t, perr, "only other steps and the status changed since revision 1")
			_, _, perr = move(t, s, StepMove{State: document.StepInProgress, By: "w3", IfRevision: rev(1)})
			require.Nil(t, perr, "the next free step")

			// A step added on top: every number after it moved.
			p, err := s.Get(ctx, "team")
			require.NoError(t, err)
			body := strings.Replace(p.Content, "# Team\n", "# Team\n- [ ] plan\n", 1)
			_, err = s.Put(ctx, Update{Name: "team", Content: &body})
			require.NoError(t, err)
			for i := range 3 {
				_, err := s.SetStatus(ctx, "team", fmt.Sprint("t", i), nil)
				require.NoError(t, err)
			}
			_, _, perr = move(t, s, StepMove{Step: 2, State: document.StepCompleted, By: "w1", IfRevision: rev(p.Revision)})
			require.NotNil(t, perr, "step 2 is w1's step now, but not the step 2 it saw")
			assert.Equal(t, "stale", perr.Reason)
			_, _, perr = move(t, s, StepMove{Step: 2, State: document.StepCompleted, By: "w1", IfRevision: rev(p.Revision + 4)})
			require.Nil(t, perr, "after catching up")
		})
	}
}

// Agents that take "the next free step" (no step number) never collide: each call takes a
// different step, atomically, whatever revision it names.
func TestTakingTheNextFreeStepNeverCollides(t *testing.T) {
	s, _ := newTeamStore(t, StoreConfig{Backend: newLocal(t, t.TempDir())})
	var mu sync.Mutex
	taken := map[int]string{}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			who := fmt.Sprint("w", i)
			_, step, err := s.MoveStep(context.Background(), StepMove{Name: "team", State: document.StepInProgress, By: who, IfRevision: rev(1)})
			assert.NoError(t, err)
			mu.Lock()
			defer mu.Unlock()
			assert.Empty(t, taken[step.Number], "step %d taken twice", step.Number)
			taken[step.Number] = who
			assert.Equal(t, who, step.Holder)
		}()
	}
	wg.Wait()
	assert.Len(t, taken, 4)
	_, _, perr := move(t, s, StepMove{State: document.StepInProgress, By: "w9"})
	require.NotNil(t, perr)
	assert.Equal(t, "no_pending_step", perr.Reason)
}

// A takeover that names no holder releases the step, whoever the context says acts.
func TestTakeOverWithNoHolderReleasesTheStep(t *testing.T) {
	s, _ := newTeamStore(t, StoreConfig{})
	_, _, perr := move(t, s, StepMove{Step: 1, State: document.StepInProgress, By: "w1"})
	require.Nil(t, perr)
	_, step, err := s.MoveStep(document.WithActor(context.Background(), "alice"), StepMove{Name: "team", Step: 1, State: document.StepInProgress, By: "", Takeover: true})
	require.NoError(t, err)
	assert.Empty(t, step.Holder)
	assert.Equal(t, "design", step.Text)
}

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

func (w *stepWorker) act(ctx context.Context, t *testing.T, s *Store, name string, tl *tally) {
	if w.holding == 0 && w.next == 0 {
		p, err := s.Get(ctx, name)
		require.NoError(t, err)
		w.lastRev = p.Revision
		next, ok := document.NextFreeStep(document.ParseSteps(p.Content))
		if !ok {
			w.finished = true
			return
		}
		w.next = next.Number
	}
	m := StepMove{Name: name, By: w.name, IfRevision: &w.lastRev}
	if w.holding != 0 {
		m.Step, m.State = w.holding, document.StepCompleted
		if w.rng.IntN(4) == 0 {
			m.State, m.Note = document.StepFailed, "could not"
		}
	} else {
		m.Step, m.State = w.next, document.StepInProgress
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
		if next, ok := document.NextFreeStep(document.ParseSteps(p.Content)); ok && w.holding == 0 {
			w.next = next.Number
		}
		return
	}
	var pe *document.Error
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

func checkSession(t *testing.T, s *Store, name string, steps int, tl *tally) {
	t.Helper()
	assert.Empty(t, tl.refusals, "no conflicts but on the same step")
	p, err := s.Get(context.Background(), name)
	require.NoError(t, err)
	assert.EqualValues(t, 1+tl.successes, p.Revision, "revision = 1 + successful changes")
	final := document.ParseSteps(p.Content)
	require.Len(t, final, steps)
	for _, st := range final {
		assert.Contains(t, []document.StepState{document.StepCompleted, document.StepFailed}, st.State, "step %d ends in one final state", st.Number)
		require.Len(t, tl.claims[st.Number], 1, "step %d taken once", st.Number)
		require.Len(t, tl.finishes[st.Number], 1, "step %d finished once", st.Number)
		assert.Equal(t, tl.claims[st.Number][0], tl.finishes[st.Number][0], "step %d finished by its holder", st.Number)
		assert.True(t, strings.Contains(st.Text, "(@"+tl.claims[st.Number][0]+")"), "the plan names who did step %d: %q", st.Number, st.Text)
	}
}

func newSession(t *testing.T, backend driver.Backend, steps int) (*Store, *tally) {
	t.Helper()
	s, err := NewStore(&StoreConfig{Backend: backend})
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("# Work\n")
	for i := 1; i <= steps; i++ {
		fmt.Fprintf(&b, "- [ ] part %d\n", i)
	}
	body := b.String()
	_, err = s.Put(context.Background(), Update{Name: "work", Content: &body, IfRevision: new(int64)})
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
		s, tl := newSession(t, memfs.New(), steps)
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

// A rewrite that moves a step and appends " — text" to it rewords the step, whatever it
// looks like: a stale move of another step made before it is refused (steps_changed), while
// the same line written by a step move with a note lets it through.
func TestAStaleMoveNeverCommutesPastARewriteThatLooksLikeAMove(t *testing.T) {
	ctx := context.Background()
	moved := "# Team\n- [x] design — and ship it to prod\n- [ ] build\n- [ ] test\n- [ ] ship\n"

	s, _ := newTeamStore(t, StoreConfig{})
	_, err := s.Put(ctx, Update{Name: "team", Content: ptrTo(moved), IfRevision: rev(1)})
	require.NoError(t, err)
	_, _, perr := move(t, s, StepMove{Step: 2, State: document.StepCompleted, By: "w2", IfRevision: rev(1)})
	require.NotNil(t, perr, "the rewrite reworded step 1")
	assert.Equal(t, document.CodeRevisionConflict, perr.Code)
	assert.Equal(t, "steps_changed", perr.Reason)

	s, _ = newTeamStore(t, StoreConfig{})
	p, _, perr := move(t, s, StepMove{Step: 1, State: document.StepCompleted, Note: "and ship it to prod", IfRevision: rev(1)})
	require.Nil(t, perr)
	require.Equal(t, moved, p.Content, "the same body, written by a move")
	_, _, perr = move(t, s, StepMove{Step: 2, State: document.StepCompleted, By: "w2", IfRevision: rev(1)})
	assert.Nil(t, perr, "a move with a note leaves the other steps as they were")
}

// The same in a seeded run: each round changes one step either by a move with a note or by a
// rewrite to the very same body, then makes a stale move of another step from the revision
// before. Moves commute, rewrites never do, in every round.
func TestStaleMovesCommuteOnlyPastMoves(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 300))
	states := []document.StepState{document.StepInProgress, document.StepCompleted, document.StepFailed, document.StepSkipped}
	var wrongApplies, wrongRefusals []string
	for round := range 300 {
		s, err := NewStore(&StoreConfig{Backend: memfs.New()})
		require.NoError(t, err)
		n := 2 + rng.IntN(6)
		var b strings.Builder
		b.WriteString("# Work\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "- [ ] part %d\n", i)
		}
		_, err = s.Put(ctx, Update{Name: "work", Content: ptrTo(b.String())})
		require.NoError(t, err)
		for range rng.IntN(3) { // some earlier moves, so revisions and states vary
			_, _, _ = s.MoveStep(ctx, StepMove{Name: "work", Step: 1 + rng.IntN(n), State: document.StepCompleted})
		}
		p, err := s.Get(ctx, "work")
		require.NoError(t, err)
		base := p.Revision
		steps := document.ParseSteps(p.Content)
		var pending []int
		for _, st := range steps {
			if st.State == document.StepPending {
				pending = append(pending, st.Number)
			}
		}
		if len(pending) < 2 {
			continue
		}
		rng.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		changed, other := pending[0], pending[1]
		to := states[rng.IntN(len(states))]
		note := fmt.Sprintf("note %d", rng.IntN(1000))

		viaMove := rng.IntN(2) == 0
		if viaMove {
			_, _, err = s.MoveStep(ctx, StepMove{Name: "work", Step: changed, State: to, Note: note, IfRevision: rev(base)})
			require.NoError(t, err)
		} else {
			moved, err := NewStore(&StoreConfig{Backend: memfs.New()})
			require.NoError(t, err)
			_, err = moved.Put(ctx, Update{Name: "work", Content: ptrTo(p.Content)})
			require.NoError(t, err)
			q, _, err := moved.MoveStep(ctx, StepMove{Name: "work", Step: changed, State: to, Note: note})
			require.NoError(t, err)
			_, err = s.Put(ctx, Update{Name: "work", Content: ptrTo(q.Content), IfRevision: rev(base)})
			require.NoError(t, err)
		}
		_, _, err = s.MoveStep(ctx, StepMove{Name: "work", Step: other, State: document.StepCompleted, By: "late", IfRevision: rev(base)})
		switch {
		case viaMove && err != nil:
			wrongRefusals = append(wrongRefusals, fmt.Sprintf("round %d: %v", round, err))
		case !viaMove && err == nil:
			wrongApplies = append(wrongApplies, fmt.Sprintf("round %d: step %d to %s", round, changed, to))
		case !viaMove:
			assert.Equal(t, "steps_changed", reasonOf(err), "round %d", round)
		}
	}
	assert.Empty(t, wrongApplies, "a stale move commuted past a rewrite")
	assert.Empty(t, wrongRefusals, "a stale move was refused after a move of another step")
}

func reasonOf(err error) string {
	var pe *document.Error
	if !errors.As(err, &pe) {
		return ""
	}
	return pe.Reason
}

// A finishing move of no step number finishes the one step its mover holds, chosen in the
// move's own write (one revision, also with Next and from a stale revision); a mover that
// holds none or several is refused, naming the steps, and nothing is written.
func TestAFinishingMoveOfNoStepFinishesTheMoversOneStep(t *testing.T) {
	ctx := context.Background()
	s, err := NewStore(&StoreConfig{Backend: memfs.New()})
	require.NoError(t, err)
	_, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] A\n- [ ] B\n- [ ] C\n")})
	require.NoError(t, err)
	rev := func() int64 {
		p, err := s.Get(ctx, "p")
		require.NoError(t, err)
		return p.Revision
	}
	move := func(m StepMove) (document.Step, error) {
		_, st, err := s.MoveStep(ctx, m)
		return st, err
	}

	_, err = move(StepMove{Name: "p", State: document.StepCompleted, By: "w"})
	assert.Equal(t, document.ReasonNoHeldStep, reasonOf(err))
	assert.EqualValues(t, 1, rev(), "nothing written")

	for _, n := range []int{1, 3} {
		_, err = move(StepMove{Name: "p", Step: n, State: document.StepInProgress, By: "w"})
		require.NoError(t, err)
	}
	_, err = move(StepMove{Name: "p", State: document.StepFailed, By: "w"})
	assert.Equal(t, document.ReasonHeldSteps, reasonOf(err))
	assert.Contains(t, err.Error(), "1, 3")
	assert.EqualValues(t, 3, rev(), "nothing written")

	_, err = move(StepMove{Name: "p", Step: 1, State: document.StepCompleted, By: "w"})
	require.NoError(t, err)
	stale := int64(2)
	took, err := move(StepMove{Name: "p", State: document.StepCompleted, By: "w", Next: true, IfRevision: &stale})
	require.NoError(t, err)
	assert.Equal(t, 2, took.Number, "step 3 finished, step 2 taken")
	p, err := s.Get(ctx, "p")
	require.NoError(t, err)
	assert.EqualValues(t, 5, p.Revision, "one revision")
	assert.Equal(t, document.StepCompleted, document.StepsOf(p.Content)[2].State)

	_, err = move(StepMove{Name: "p", State: document.StepCompleted, By: "other"})
	assert.Equal(t, document.ReasonNoHeldStep, reasonOf(err), "another agent's step is not the mover's")
}
