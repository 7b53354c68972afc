package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// stepOf reads step number of plan ship as the agents see it.
func stepOf(t *testing.T, s *plan.Store, number int) plan.Step {
	t.Helper()
	p, err := s.Get(context.Background(), "ship")
	require.NoError(t, err)
	for _, st := range plan.ParseSteps(p.Content) {
		if st.Number == number {
			return st
		}
	}
	t.Fatalf("no step %d", number)
	return plan.Step{}
}

// A worker holds a step and stops; a person hands the step to another worker, who finishes
// it, while the stuck worker can no longer move it.
func TestTakeHandsAStepOver(t *testing.T) {
	dir, agent := step3HeldByWorker1(t)
	ctx := context.Background()
	assert.Contains(t, planctl(t, "-dir", dir, "show", "ship").stdout, "\nheld:     step 2 by nobody; step 3 by worker-1\n")

	r := planctlOK(t, "-dir", dir, "take", "ship", "3", "-to", "worker-2")
	assert.Equal(t, "ship: step 3 (Tag) is now held by worker-2; revision 3\n", r.stdout)
	assert.Equal(t, "worker-2", stepOf(t, agent, 3).Holder)
	assert.Contains(t, planctl(t, "-dir", dir, "show", "ship").stdout, "\nheld:     step 2 by nobody; step 3 by worker-2\n")

	_, _, err := agent.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 3, State: plan.StepCompleted, By: "worker-1"})
	assert.Equal(t, plan.CodeStepHeld, plan.CodeOf(err), "the stuck worker no longer holds the step")
	_, _, err = agent.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 3, State: plan.StepCompleted, By: "worker-2"})
	require.NoError(t, err)
	assert.Equal(t, plan.StepCompleted, stepOf(t, agent, 3).State)

	r = planctlOK(t, "-dir", dir, "take", "ship", "2", "--to=worker-2")
	assert.Equal(t, "ship: step 2 (Test) is now held by worker-2; revision 5\n", r.stdout)
	r = planctlOK(t, "-dir", dir, "take", "ship", "2", "-to", "worker-2")
	assert.Equal(t, "ship: step 2 (Test) is already held by worker-2; nothing was changed (revision 5)\n", r.stdout)
}

// Without -to the step is released: still in progress, and any worker may finish it.
func TestTakeReleasesAStep(t *testing.T) {
	dir, agent := step3HeldByWorker1(t)
	ctx := context.Background()

	r := planctlOK(t, "-dir", dir, "take", "ship", "3")
	assert.Equal(t, "ship: step 3 (Tag) released: in progress, held by nobody; revision 3\n", r.stdout)
	step := stepOf(t, agent, 3)
	assert.Equal(t, plan.StepInProgress, step.State)
	assert.Empty(t, step.Holder)
	_, _, err := agent.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 3, State: plan.StepCompleted, By: "worker-2"})
	require.NoError(t, err, "a released step is held by nobody")

	r = planctlOK(t, "-dir", dir, "take", "ship", "2", "-to", "")
	assert.Equal(t, "ship: step 2 (Test) is already held by nobody; nothing was changed (revision 4)\n", r.stdout)
}

func TestTakeRefused(t *testing.T) {
	dir := newDir(t)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"take", "ship", "1", "-to", "w"}, exitFailed, "planctl: illegal_transition: step 1 of ship is completed: only a step in progress can change hands, " +
			"or a pending one be started; `planctl show ship` shows the steps\n"},
		{[]string{"take", "ship", "4", "-to", "w"}, exitFailed, "planctl: illegal_transition: step 4 of ship is skipped: "},
		{[]string{"take", "ship", "9", "-to", "w"}, exitFailed, "planctl: invalid_argument: ship has no step 9: its checklist has 4 steps, " +
			"as `planctl show ship` lists them\n"},
		{[]string{"take", "ship", "3"}, exitFailed, "planctl: step 3 of ship is pending: nobody holds it, so there is nothing to release; " +
			"`planctl take ship 3 -to WHO` starts it for WHO\n"},
		{[]string{"take", "ship", "0"}, exitUsage, "planctl: 0 is not a step number: steps are numbered from 1, as `planctl show ship` lists them\n"},
		{[]string{"take", "ship", "two"}, exitUsage, "planctl: two is not a step number"},
		{[]string{"take", "nope", "1", "-to", "w"}, exitNotFound, "planctl: not_found: no plan named nope"},
		{[]string{"take", "ship"}, exitUsage, "take takes 2 arguments: planctl take NAME STEP"},
		{[]string{"show", "ship", "-to", "w"}, exitUsage, "-to applies to take only, not to show"},
	}
	for _, c := range cases {
		r := planctl(t, append([]string{"-dir", dir}, c.args...)...)
		assert.Equal(t, c.code, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.want, "%v", c.args)
		assert.Empty(t, r.stdout, "%v", c.args)
	}
	assert.Contains(t, planctl(t, "-dir", dir, "show", "ship").stdout, "revision: 1\n", "nothing was written")

	// A pending step taken for a worker is started for it.
	r := planctlOK(t, "-dir", dir, "take", "ship", "3", "-to", "worker 3")
	assert.Equal(t, "ship: step 3 (Tag) is now held by worker 3; revision 2\n", r.stdout)
}

// step3HeldByWorker1 is a plans folder whose plan ship has step 3 in progress, held by
// worker-1, and a Store on it for agent worker.
func step3HeldByWorker1(t *testing.T) (dir string, agent *plan.Store) {
	t.Helper()
	dir = newDir(t)
	agent = agentStore(t, dir, "worker")
	_, _, err := agent.MoveStep(context.Background(), plan.StepMove{Name: "ship", Step: 3, State: plan.StepInProgress, By: "worker-1"})
	require.NoError(t, err)
	return dir, agent
}
