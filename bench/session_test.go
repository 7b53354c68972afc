package main

import (
	"context"
	"testing"
)

// sessionTestModes are the two ways workers share a plan on one LocalBackend folder
// (where the previous build's workers reliably get in each other's way): goroutines of
// one process, and worker processes (this test binary, re-executed).
var sessionTestModes = []struct {
	name  string
	procs int
}{{"goroutines", 0}, {"processes", 2}}

// Sessions in tests: small enough to stay fast, with enough workers to collide.
const (
	testSteps   = 16
	testWorkers = 4
)

// completedSteps returns the steps any worker's completion of was acknowledged.
func completedSteps(r *sessionReport) map[int]bool {
	done := map[int]bool{}
	for _, a := range r.Agents {
		for _, s := range a.Completions {
			done[s] = true
		}
	}
	return done
}

func TestSessionPlan(t *testing.T) {
	for _, m := range sessionTestModes {
		t.Run(m.name, func(t *testing.T) {
			rep, err := runSession(context.Background(), sessionSpec{Kind: kindPlan, Local: true, Procs: m.procs, Steps: testSteps, Workers: testWorkers, Recover: recoverStatus})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Agents) != 1+testWorkers {
				t.Fatalf("%d agents reported, want the orchestrator and %d workers", len(rep.Agents), testWorkers)
			}
			for _, a := range rep.Agents {
				if a.GaveUp {
					t.Errorf("%s gave up after errors %v", a.Name, a.Errors)
				}
			}
			f := rep.figures()
			if rep.Status != "done" || f.left != 0 || len(completedSteps(rep)) != testSteps {
				t.Errorf("status %q, %d steps left, %d steps completed by a worker; want done, 0, %d", rep.Status, f.left, len(completedSteps(rep)), testSteps)
			}
			if f.doneTwice != 0 || f.lost != 0 || f.otherSteps != 0 {
				t.Errorf("%d steps done twice, %d lost moves, %d conflicts caused by moves of other steps; want 0, 0, 0 (errors %v)",
					f.doneTwice, f.lost, f.otherSteps, errorCodes([]*sessionReport{rep}))
			}
			// Every acknowledged write is one revision: the plan, a claim and a completion per
			// step, done.
			if want := int64(2 + 2*testSteps); rep.Revision != want {
				t.Errorf("final revision %d, want %d", rep.Revision, want)
			}
		})
	}
}

func TestSessionPlantask(t *testing.T) {
	for _, m := range sessionTestModes {
		t.Run(m.name, func(t *testing.T) {
			rep, err := runSession(context.Background(), sessionSpec{Kind: kindPlantask, Local: true, Procs: m.procs, Steps: testSteps, Workers: testWorkers})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Agents) != 1+testWorkers {
				t.Fatalf("%d agents reported, want %d", len(rep.Agents), 1+testWorkers)
			}
			f := rep.figures()
			// plantask checks nothing: a completion can be overwritten, or fail once every
			// task was completed and deleted (the worker's run ends), so some completions
			// may go unacknowledged; every task still ends completed.
			aborted := 0
			for _, a := range rep.Agents {
				aborted += a.Aborted
			}
			if f.left != 0 || len(completedSteps(rep))+f.lost+aborted < testSteps {
				t.Errorf("%d tasks left open, %d completed by a worker (%d lost, %d runs ended); want 0 and %d", f.left, len(completedSteps(rep)), f.lost, aborted, testSteps)
			}
			claims := 0
			for _, a := range rep.Agents {
				claims += len(a.Claims)
			}
			if claims < testSteps+f.doneTwice {
				t.Errorf("%d claims for %d tasks, %d done twice: a task completed twice was claimed twice", claims, testSteps, f.doneTwice)
			}
		})
	}
}

func TestSessionFigures(t *testing.T) {
	rep := &sessionReport{
		Spec:     sessionSpec{Kind: kindPlan},
		Status:   "done",
		Revision: 7,
		Agents: []agentLog{
			{Name: "orchestrator", Turns: 5, TokensIn: 10, TokensOut: 20},
			{Name: "w1", Turns: 4, Claims: []int{1, 2}, Completions: []int{1, 2}, Errors: map[string]int{"step_held": 1},
				Moves:     []stepMove{{1, 2}, {1, 3}, {2, 4}, {2, 5}},
				Conflicts: []conflict{{Step: 1, Code: "step_held", Base: 1, Current: 2}}},
			{Name: "w2", Turns: 3, Claims: []int{2}, Completions: []int{2}, Errors: map[string]int{"revision_conflict": 2},
				Moves: []stepMove{{2, 6}, {2, 7}},
				// step 2 moved at revision 4, within (3, 5]: same step; nothing moved step 3 within (1, 3].
				Conflicts: []conflict{{Step: 2, Code: "revision_conflict", Base: 3, Current: 5}, {Step: 3, Code: "revision_conflict", Base: 1, Current: 3}}},
		},
	}
	f := rep.figures()
	// 1 write_plan + 6 moves + 1 set_plan_status acknowledged, 7 revisions: one lost.
	want := sessionFigures{turns: 12, conflicts: 3, sameStep: 2, otherSteps: 1, tokensIn: 10, tokensOut: 20, doneTwice: 1, lost: 1}
	if f != want {
		t.Errorf("figures %+v, want %+v", f, want)
	}
	rep.Spec.Kind = kindPlantask
	rep.Agents[1].Overwrites, rep.Agents[2].Overwrites = 2, 1
	if got := rep.figures().lost; got != 3 {
		t.Errorf("plantask lost moves %d, want the 3 overwrites", got)
	}
}

func TestFirstPendingAndFreeTask(t *testing.T) {
	s := firstPending("# T\n\n- [x] a\n  - [~] b\n- [ ] c\n- [ ] d\n")
	if s == nil || s.Number != 3 || s.Text != "c" {
		t.Errorf("firstPending = %+v, want step 3 c", s)
	}
	if s := firstPending("- [x] a\n"); s != nil {
		t.Errorf("firstPending of a finished body = %+v, want nil", s)
	}
	list := "#1 [completed] a [owner: w1]\n#2 [pending] b [owner: w2]\n#3 [in_progress] c\n#4 [pending] d [blocked by #3]\n#5 [pending] e"
	if got := firstFreeTask(list); got != 5 {
		t.Errorf("firstFreeTask = %d, want 5", got)
	}
	if got := firstFreeTask("No tasks found."); got != 0 {
		t.Errorf("firstFreeTask of no tasks = %d, want 0", got)
	}
}
