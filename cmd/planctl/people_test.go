//go:build unix

package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// waitingRun runs an orchestrator on the plans in dir until it pauses in
// request_plan_approval for plan ship, and returns the revision it waits on.
func waitingRun(t *testing.T, dir string) int64 {
	t.Helper()
	ctx := context.Background()
	backend, err := plan.NewLocalBackend(filepath.Dir(dir))
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, RequireApproval: true, AgentName: "planner"})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
		Instruction: "You plan.", Model: plantest.NewScriptedModel(plantest.CallTool("request_plan_approval", `{"name":"ship"}`)),
		Handlers: []adk.ChatModelAgentMiddleware{mw}})
	require.NoError(t, err)
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &plantest.CheckPoints{}}).Query(ctx, "ship", adk.WithCheckPointID("ship"))
	for {
		ev, ok := iter.Next()
		require.True(t, ok, "the run paused")
		require.NoError(t, ev.Err)
		if ev.Action != nil && ev.Action.Interrupted != nil {
			req, ok := ev.Action.Interrupted.InterruptContexts[0].Info.(plan.ApprovalRequest)
			require.True(t, ok)
			return req.Revision
		}
	}
}

// planctl reject, run as its own process, turns down the revision a run waits on: the host
// waiting with WaitDecision gets the feedback, log and show keep it, and list and show said
// that the run was waiting until then.
func TestPlanctlRejectReachesTheWaitingHost(t *testing.T) {
	dir := newDir(t)
	rev := waitingRun(t, dir)
	require.EqualValues(t, 2, rev)
	assert.Regexp(t, `(?m)^ship\s.*\s2\s+no, planner waits\s+\d{4}-`, planctl(t, "-dir", dir, "list").stdout)
	assert.Regexp(t, `(?m)^asked:    planner waits for a decision on r2 since \d{4}-`, planctl(t, "-dir", dir, "show", "ship").stdout)

	host := agentStore(t, dir, "host")
	decided := make(chan plan.ApprovalDecision, 1)
	go func() {
		d, err := host.WaitDecision(context.Background(), "ship", rev)
		assert.NoError(t, err)
		decided <- d
	}()
	r := planctl(t, "-dir", dir, "reject", "ship", "-rev", "2", "-by", "alice")
	assert.Equal(t, exitUsage, r.code, "feedback is required")
	out, err := exec.Command(planctlBinary(t), "-dir", dir, "reject", "ship", "-rev", "2", "-by", "alice",
		"-feedback", "Add a rollback step first").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ship: revision 2 rejected by alice; the plan is now at revision 3\n", string(out))
	select {
	case d := <-decided:
		assert.Equal(t, plan.ApprovalDecision{By: "alice", Feedback: "Add a rollback step first"}, d)
	case <-time.After(20 * time.Second):
		t.Fatal("the waiting host got no decision")
	}

	log := lines(planctl(t, "-dir", dir, "log", "ship").stdout)
	assert.Regexp(t, `^REV\s+TIME\s+ACTION\s+BY\s+STATUS$`, log[0], "no hold expired: no column for it")
	assert.Regexp(t, `^3\s+\S+ \S+\s+reject r2 "Add a rollback step first"\s+alice\s+draft$`, log[1])
	assert.Regexp(t, `^2\s+\S+ \S+\s+await\s+planner\s+draft$`, log[2])
	show := planctl(t, "-dir", dir, "show", "ship").stdout
	assert.Regexp(t, `(?m)^rejected: r2 by alice, \d{4}-\S+ \S+ \S+: Add a rollback step first$`, show)
	assert.NotContains(t, show, "asked:", "the decision ends the wait")
}

// planctl approve shows what changed since the last approved revision: without -rev, before
// approving, and after approving.
func TestPlanctlApproveShowsWhatChangedSinceTheLastApproval(t *testing.T) {
	dir := newDir(t)
	r := planctlOK(t, "-dir", dir, "approve", "ship", "-rev", "1", "-by", "alice")
	assert.Equal(t, "ship: revision 1 approved by alice; the plan is now at revision 2\n", r.stdout)
	_, err := agentStore(t, dir, "worker").Put(context.Background(), plan.Update{Name: "ship", Content: ptr(shipBody + "- [ ] Roll back if needed\n")})
	require.NoError(t, err)

	r = planctl(t, "-dir", dir, "approve", "ship")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stdout, "ship: changes since revision 1, approved by alice:\n")
	assert.Contains(t, r.stdout, "+- [ ] Roll back if needed")
	assert.Contains(t, r.stderr, "approve needs -rev N")

	r = planctlOK(t, "-dir", dir, "approve", "ship", "-rev", "3", "-by", "bob")
	assert.True(t, strings.HasPrefix(r.stdout, "ship: revision 3 approved by bob; the plan is now at revision 4\nship: changes since revision 1, approved by alice:\n"), r.stdout)
	assert.Contains(t, r.stdout, "+- [ ] Roll back if needed")
}

// planctl log says whose hold had expired when a change moved its step.
func TestPlanctlLogShowsAnExpiredHold(t *testing.T) {
	dir := newDir(t)
	backend, err := plan.NewLocalBackend(filepath.Dir(dir))
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	s, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HoldTTL: 50 * time.Millisecond})
	require.NoError(t, err)
	ctx := context.Background()
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 3, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 3, State: plan.StepCompleted, By: "w2"})
	require.NoError(t, err)
	log := lines(planctl(t, "-dir", dir, "log", "ship").stdout)
	assert.Regexp(t, `^REV\s+TIME\s+ACTION\s+BY\s+STATUS\s+EXPIRED$`, log[0])
	assert.Regexp(t, `^3\s+\S+ \S+\s+step\s+w2\s+draft\s+w1 \(step 3\)$`, log[1])
	assert.Regexp(t, `^2\s+\S+ \S+\s+step\s+w1\s+draft\s+-$`, log[2])
}
