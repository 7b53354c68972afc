package plan_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/plantest"
)

// TestApprovalGate: with RequireApproval no step moves before the approval; after it, step
// moves and status changes keep it, and a body edit revokes it until it is approved again.
func TestApprovalGate(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	model := plantest.NewScriptedModel(
		writePlanCall("release", approvalPlan, 0), // r1
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"in_progress"}`),
		plantest.CallTool("request_plan_approval", `{"name":"release"}`),                                                  // r2: waits, r3: approved r2
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"completed","note":"see CHANGES.md"}`), // r4
		plantest.CallTool("set_plan_status", `{"name":"release","status":"in-progress"}`),                                 // r5
		plantest.CallTool("get_plan_status", `{"name":"release"}`),
		writePlanCall("release", strings.Replace(approvalRevised, "- [ ] Write", "- [x] Write", 1), 5), // r6
		plantest.CallTool("update_plan_step", `{"name":"release","step":2,"status":"in_progress"}`),
		plantest.CallTool("read_plan", `{"name":"release"}`),
		plantest.CallTool("request_plan_approval", `{"name":"release"}`),                            // r7: waits, r8: approved r7
		plantest.CallTool("update_plan_step", `{"name":"release","step":2,"status":"in_progress"}`), // r9
		plantest.Answer("tagging"),
	)
	runner := r.runner(model)
	paused := r.start(runner)
	res := resultAt(t, model, 2)
	assert.Equal(t, "not_approved", errorCode(t, res), "no step moves before the approval")
	assert.Contains(t, res, "request_plan_approval")
	require.Len(t, paused, 1)

	paused = r.resume(runner, map[string]any{paused[0].id: plan.ApprovalDecision{Approved: true, By: "ana"}})
	assert.Empty(t, errorCode(t, resultAt(t, model, 4)), "moves are allowed once approved")
	assert.Empty(t, errorCode(t, resultAt(t, model, 5)))
	status := resultAt(t, model, 6)
	assert.Contains(t, status, `"approval":{"revision":2,"by":"ana"`, "a step move with a note and a status change keep the approval")
	assert.NotContains(t, status, `"approved":false`)
	assert.Empty(t, errorCode(t, resultAt(t, model, 7)))
	assert.Equal(t, "not_approved", errorCode(t, resultAt(t, model, 8)), "a body edit revokes the approval")
	read := resultAt(t, model, 9)
	assert.Contains(t, read, `"approved":false`)
	assert.NotContains(t, read, `"approval":`)

	require.Len(t, paused, 1)
	assert.EqualValues(t, 7, paused[0].req.Revision)
	assert.Contains(t, paused[0].req.Diff, "+- [ ] Roll back if the smoke test fails", "the person sees what changed since revision 2")
	assert.Contains(t, paused[0].req.Diff, "release@2")
	assert.Empty(t, r.resume(runner, map[string]any{paused[0].id: plan.ApprovalDecision{Approved: true, By: "bo"}}))
	assert.Empty(t, errorCode(t, resultAt(t, model, 11)))
	p := r.get("release")
	require.NotNil(t, p.Approval)
	assert.Equal(t, api.Approval{Revision: 7, By: "bo", At: p.Approval.At}, *p.Approval)
	assert.EqualValues(t, 9, p.Revision)

	// A new run sees the approval in its digest and in list_plans.
	next := plantest.NewScriptedModel(plantest.CallTool("list_plans", `{}`), plantest.Answer("ok"))
	assert.Empty(t, r.untilPause(r.runner(next).Query(r.ctx, "status?", adk.WithCheckPointID("second"))))
	system := next.Calls()[0].Input[0]
	require.Equal(t, schema.System, system.Role)
	assert.Contains(t, system.Content, "approved=r7")
	assert.Contains(t, system.Content, "request_plan_approval", "the orchestrator is told to ask")
	assert.Contains(t, resultAt(t, next, 1), `"approval":{"revision":7,"by":"bo"`)
}

// TestApprovalGateOffByDefault: without RequireApproval steps move freely, the tool is not
// offered, and a host's approval still shows.
func TestApprovalGateOffByDefault(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(
		writePlanCall("release", approvalPlan, 0),
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"completed"}`),
		plantest.CallTool("read_plan", `{"name":"release"}`),
	)
	results := toolResults(runAgent(t, m, mw))
	require.Len(t, results, 3)
	assert.Empty(t, errorCode(t, results[1]))
	assert.NotContains(t, results[2], `"approved"`)
	assert.NotContains(t, m.Calls()[0].ToolNames(), "request_plan_approval")
	assert.NotContains(t, m.Calls()[0].Input[0].Content, "request_plan_approval")
}

// TestSubAgentCannotRequestApproval: a sub-agent never sees request_plan_approval, a call
// to it anyway is tool_not_available, and its steps wait for the approval too.
func TestSubAgentCannotRequestApproval(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, RequireApproval: true})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(
		writePlanCall("ship", approvalPlan, 0),
		plantest.CallTool("worker", `{"request":"Do step 1 of plan ship"}`),
		plantest.CallTool("request_plan_approval", `{"name":"ship"}`),
		plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"completed"}`),
		plantest.Answer("waiting for approval"),
		plantest.Answer("the plan is not approved"),
	)
	main, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "main", Description: "orchestrator",
		Instruction: "You plan.", Model: m, Handlers: []adk.ChatModelAgentMiddleware{mw},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: toolsNode(adk.NewAgentTool(ctx, newWorker(t, ctx, m, mw)))}})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: main, CheckPointStore: dirCheckPoints{t.TempDir()}}).
		Query(ctx, "ship it", adk.WithCheckPointID("ship")))

	calls := m.Calls()
	require.Len(t, calls, 6)
	for i, c := range calls {
		sub := i >= 2 && i <= 4
		assert.Equal(t, !sub, slices.Contains(c.ToolNames(), "request_plan_approval"), "call %d tools %v", i, c.ToolNames())
		assert.Equal(t, !sub, strings.Contains(c.Input[0].Content, "request_plan_approval"), "call %d instruction", i)
	}
	assert.Contains(t, calls[2].Input[0].Content, "not_approved", "the sub-agent is told that steps wait")
	assert.Equal(t, "tool_not_available", errorCode(t, lastToolResult(calls[3])))
	assert.Equal(t, "not_approved", errorCode(t, lastToolResult(calls[4])))
	store := storeOn(t, backend, "")
	p, err := store.Get(ctx, "ship")
	require.NoError(t, err)
	assert.EqualValues(t, 1, p.Revision)
	assert.Nil(t, p.Approval)
}

// TestRequestApprovalOfApprovedPlan: asking for an approval the plan already has answers at
// once, without pausing the run.
func TestRequestApprovalOfApprovedPlan(t *testing.T) {
	ctx := context.Background()
	store, _ := approvedStore(t, t.TempDir())
	mw, err := plan.New(ctx, &plan.Config{Store: store, RequireApproval: true})
	require.NoError(t, err)
	runCtx, _, tools := beforeAgentTools(t, ctx, mw)
	out, err := tools[plan.ToolRequestPlanApproval].InvokableRun(runCtx, `{"name":"release"}`)
	require.NoError(t, err, "no interrupt")
	assert.Contains(t, out, `"approved":true`)
	assert.Contains(t, out, `"approval":{"revision":1,"by":"ana"`)
}

// A plan not approved under RequireApproval cannot get its steps moved by a rewrite either;
// a rewrite that keeps them pending is still allowed.
func TestApprovalGateCoversRewrites(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	model := plantest.NewScriptedModel(
		writePlanCall("release", approvalPlan, 0),
		writePlanCall("release", strings.ReplaceAll(approvalPlan, "- [ ]", "- [x]"), 1),
		writePlanCall("release", approvalPlan+"\nRisks: none.\n", 1),
		plantest.Answer("waiting"),
	)
	assert.Empty(t, r.start(r.runner(model)))
	assert.Equal(t, "not_approved", errorCode(t, resultAt(t, model, 2)), "marking steps done by rewriting")
	assert.Empty(t, errorCode(t, resultAt(t, model, 3)), "rewriting with steps pending")
	p := r.get("release")
	assert.Equal(t, 0, plan.Summarize(p).Progress.Completed)
}

const releaseSteps = "# Release\n- [ ] Build\n- [ ] Publish to prod\n"

// Under RequireApproval a rewrite is judged step by step: one that finishes a step nobody
// approved is refused even when it leaves as many steps done as before.
func TestARewriteCannotFinishAnUnapprovedStep(t *testing.T) {
	ctx := context.Background()
	s := storeOn(t, plan.NewMemoryBackend(), "")
	mw, err := plan.New(ctx, &plan.Config{Store: s, RequireApproval: true, AgentName: "planner"})
	require.NoError(t, err)
	_, err = s.Put(ctx, plan.Update{Name: "release", Content: ptr(releaseSteps)})
	require.NoError(t, err)
	_, err = s.Approve(ctx, "release", 1, "ana")
	require.NoError(t, err)

	swapped := strings.Replace(strings.Replace(releaseSteps, "- [ ] Publish", "- [x] Publish", 1), "- [ ] Build", "- [ ] Build", 1)
	model := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"completed"}`),
		writePlanCall("release", swapped, 3),
		plantest.Answer("done"),
	)
	results := runTools(t, model, mw)
	require.Len(t, results, 2)
	assert.Empty(t, errorCode(t, results[0]), results[0])
	assert.Equal(t, "not_approved", errorCode(t, results[1]), results[1])
	p, err := s.Get(ctx, "release")
	require.NoError(t, err)
	assert.EqualValues(t, 3, p.Revision, "nothing was written")
	assert.Contains(t, p.Content, "- [ ] Publish to prod")
}

// The approval requirement belongs to the plan: a plan written under RequireApproval keeps
// it, and a middleware or Store on the same storage that does not ask for approvals still
// refuses to move its steps until it is approved.
func TestTheApprovalRequirementBelongsToThePlan(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	writtenUnderRequirement(t, backend, releaseSteps)

	lax, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "worker"})
	require.NoError(t, err)
	results := runTools(t, plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"in_progress"}`),
		plantest.Answer("ok")), lax)
	require.Len(t, results, 1)
	assert.Equal(t, "not_approved", errorCode(t, results[0]), results[0])

	host := storeOn(t, backend, "")
	_, _, err = host.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted})
	assert.Equal(t, plan.CodeNotApproved, plan.CodeOf(err), "a host's Store enforces it too")
	body := "# Release\n- [x] Build\n"
	_, err = host.Put(ctx, plan.Update{Name: "release", Content: &body})
	assert.Equal(t, plan.CodeNotApproved, plan.CodeOf(err), "and so do rewrites")

	p, err := host.Get(ctx, "release")
	require.NoError(t, err)
	assert.True(t, p.RequiresApproval)
	_, err = host.Approve(ctx, "release", p.Revision, "ana")
	require.NoError(t, err)
	_, _, err = host.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted})
	assert.NoError(t, err, "once approved, steps move")
}

func approvedStore(t *testing.T, root string) (*plan.Store, *[]plan.Change) {
	t.Helper()
	var changes []plan.Change
	store, err := plan.NewStore(&plan.StoreConfig{Backend: newLocal(t, root),
		OnChange: func(_ context.Context, c plan.Change) { changes = append(changes, c) }})
	require.NoError(t, err)
	body := approvalPlan
	_, err = store.Put(context.Background(), plan.Update{Name: "release", Content: &body})
	require.NoError(t, err)
	p, err := store.Approve(context.Background(), "release", 1, "ana")
	require.NoError(t, err)
	require.NotNil(t, p.Approval)
	return store, &changes
}

// A hand edit that only changes step markers (marking the security review done, so the
// deploy step waiting for it is ready) is a change to which steps are done: a Store reads
// the plan as not approved, and the agent that then takes the deploy step cannot deploy.
func TestAHandEditOfStepMarkersVoidsTheApproval(t *testing.T) {
	ctx := context.Background()
	d := newOnDisk(t)
	body := "# Release\n- [ ] Run the security review\n- [ ] Deploy to production (after 1) (uses deploy_prod)\n"
	d.put(t, plan.Update{Content: &body}, "ana")

	handEdit(t, d.dir, "release", "- [ ] Run the security review", "- [x] Run the security review")

	fresh := storeOn(t, d.backend, "")
	got, err := fresh.Get(ctx, "release")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "a plan whose steps were marked done by hand is not the plan approved")

	var deploys atomic.Int32
	var log gateLog
	_, runner := usesAgent(t, &plan.Config{Backend: d.backend, AgentName: "worker", GatedTools: []string{"deploy_prod"}},
		filesystem.NewInMemoryBackend(), &deploys, &log, takeStep("release", 2), deploy)
	gateEvents(t, runner.Query(ctx, "deploy"))
	assert.Zero(t, deploys.Load(), "deploy_prod ran under an approval the edit should have voided")
	calls := log.calls()
	require.NotEmpty(t, calls)
	assert.False(t, calls[len(calls)-1].Allowed, "%+v", calls)
}

// handEdit replaces old with new in plan name's file under the root dir of a LocalBackend, as
// a person editing the file would; the edit must change the file.
func handEdit(t *testing.T, dir, name, old, new string) {
	t.Helper()
	file := filepath.Join(dir, "plans", name+".md")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	edited := strings.Replace(string(raw), old, new, 1)
	require.NotEqual(t, string(raw), edited)
	require.NoError(t, os.WriteFile(file, []byte(edited), 0o600))
}

// A hand edit that drops the plan's approval requirement (so an agent could skip the steps
// others wait for) voids its approval too, and the plan stays under the requirement.
func TestAHandEditDroppingTheApprovalRequirementVoidsTheApproval(t *testing.T) {
	ctx := context.Background()
	d := writtenUnderTheRequirement(t)
	p, err := d.store.Get(ctx, "release")
	require.NoError(t, err)
	require.True(t, p.RequiresApproval)
	_, err = d.store.Approve(ctx, "release", p.Revision, "ana")
	require.NoError(t, err)

	handEdit(t, d.dir, "release", "requires_approval: true\n", "")

	got, err := d.store.Get(ctx, "release")
	require.NoError(t, err)
	assert.True(t, got.RequiresApproval, "the plan's mark keeps the requirement a hand edit dropped")
	assert.Nil(t, got.Approval, "the file's requirement a person approved under is gone: so is the approval")
}

// TestApprovalGateIsAtomic: workers move steps through the gated tool while a person keeps
// revoking and re-approving. No step ever moves while the plan is not approved: every
// re-approval lands on the revision its revoke wrote, and every step revision follows an
// approved one.
func TestApprovalGateIsAtomic(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HistoryLimit: 5000, HistoryMaxBytes: 64 << 20})
	require.NoError(t, err)
	var body strings.Builder
	const steps = 40
	for i := 0; i < steps; i++ {
		body.WriteString("- [ ] step\n")
	}
	content := body.String()
	_, err = store.Put(ctx, plan.Update{Name: "race", Content: &content})
	require.NoError(t, err)
	_, err = store.Approve(ctx, "race", 1, "ana")
	require.NoError(t, err)
	mw, err := plan.New(ctx, &plan.Config{Store: store, RequireApproval: true})
	require.NoError(t, err)
	runCtx, _, tools := beforeAgentTools(t, ctx, mw)

	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for n := 1 + w; n <= steps; {
				out, err := tools[plan.ToolUpdatePlanStep].InvokableRun(runCtx, `{"name":"race","step":`+strconv.Itoa(n)+`,"status":"completed"}`)
				if !assert.NoError(t, err) {
					return
				}
				if code := errorCode(t, out); code == "" {
					n += 4
				} else if !assert.Equal(t, "not_approved", code, out) {
					return
				}
			}
		}(w)
	}
	go func() { wg.Wait(); close(done) }()
	toggles := 0
	for running := true; running && toggles < 1500; toggles++ {
		select {
		case <-done:
			running = false
		default:
		}
		p, err := store.Revoke(ctx, "race")
		require.NoError(t, err)
		_, err = store.Approve(ctx, "race", p.Revision, "ana")
		require.NoError(t, err, "no step moved while the plan was not approved")
	}
	<-done
	p, err := store.Get(ctx, "race")
	require.NoError(t, err)
	require.Equal(t, steps, plan.Summarize(p).Progress.Completed)
	hist, err := store.History(ctx, "race")
	require.NoError(t, err)
	moves := 0
	for _, r := range hist {
		if r.Action != plan.ActionStep {
			continue
		}
		moves++
		before, err := store.GetRevision(ctx, "race", r.Revision-1)
		require.NoError(t, err)
		assert.NotNil(t, before.Approval, "revision %d moved a step of an unapproved plan", r.Revision)
	}
	assert.Equal(t, steps, moves)
	t.Logf("%d revoke/approve pairs during %d step moves", toggles, moves)
}

// The approval requirement belongs to the plan and outlives its deletion: an agent whose
// middleware does not ask for approvals deletes a plan written under the requirement and
// writes it again, and the plan it wrote still needs a person's approval before a step moves
// or a rewrite finishes one.
func TestTheApprovalRequirementSurvivesADeleteAndRecreate(t *testing.T) {
	for _, bc := range backendCases() {
		t.Run(bc.name, func(t *testing.T) {
			ctx := context.Background()
			backend, _ := bc.new(t)
			host := approvedUnderRequirement(t, backend)
			lax, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "deployer"})
			require.NoError(t, err)
			done := "# Release\n- [x] Run the security review\n- [ ] Deploy to production (after 1)\n- [ ] Tell the team\n"
			results := runTools(t, plantest.NewScriptedModel(
				plantest.CallTool("delete_plan", `{"name":"release"}`),
				writePlanCall("release", done, 0),
				writePlanCall("release", reviewedRelease, 0),
				plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"skipped"}`),
				plantest.Answer("deployed"),
			), lax)
			require.Len(t, results, 4)
			assert.Empty(t, errorCode(t, results[0]), results[0])
			assert.Equal(t, "not_approved", errorCode(t, results[1]), "a create cannot finish a step: %s", results[1])
			assert.Empty(t, errorCode(t, results[2]), results[2])
			assert.Equal(t, "not_approved", errorCode(t, results[3]), results[3])

			p, err := host.Get(ctx, "release")
			require.NoError(t, err)
			assert.True(t, p.RequiresApproval)
			assert.Nil(t, p.Approval, "a plan written again is not approved")
			assert.EqualValues(t, 3, p.Revision, "revisions go on after the deletion")
			assert.Equal(t, reviewedRelease, p.Content)
		})
	}
}

// The same through the Store's API, whoever deletes the plan (a named person, or nobody,
// whose delete may move the plan file onto its tombstone) and whoever writes it again.
func TestADeletedPlansTombstoneKeepsItsApprovalRequirement(t *testing.T) {
	for _, bc := range backendCases() {
		for _, deleter := range []string{"", "ana"} {
			t.Run(bc.name+"/"+deleter, func(t *testing.T) {
				ctx := context.Background()
				backend, _ := bc.new(t)
				host := approvedUnderRequirement(t, backend)
				_, err := host.Delete(plan.WithActor(ctx, deleter), "release", nil)
				require.NoError(t, err)

				fresh := storeOn(t, backend, "")
				p, err := fresh.Put(ctx, plan.Update{Name: "release", Content: ptr(reviewedRelease)})
				require.NoError(t, err)
				assert.True(t, p.RequiresApproval)
				_, _, err = fresh.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepInProgress, By: "w1"})
				assert.Equal(t, plan.CodeNotApproved, plan.CodeOf(err))

				// Deleted again, by anyone: still required.
				_, err = fresh.Delete(ctx, "release", nil)
				require.NoError(t, err)
				p, err = host.Put(ctx, plan.Update{Name: "release", Content: ptr(reviewedRelease)})
				require.NoError(t, err)
				assert.True(t, p.RequiresApproval)
			})
		}
	}
}

// A move's note never changes what a step may use: a note ending like "(uses …)" is refused
// with invalid_argument and nothing is written, so an approved step cannot be given more
// tools than the person approved.
func TestANoteCannotChangeTheToolsAStepMayUse(t *testing.T) {
	ctx := context.Background()
	s := storeOn(t, plan.NewMemoryBackend(), "")
	body := "# Fix\n- [ ] Fix a typo in the README\n- [ ] Deploy (uses deploy_prod)\n"
	p, err := s.Put(ctx, plan.Update{Name: "fix", Content: &body})
	require.NoError(t, err)
	p, err = s.Approve(ctx, "fix", p.Revision, "ana")
	require.NoError(t, err)
	for _, tc := range []struct {
		step int
		note string
	}{
		{1, "(uses deploy_prod)"},
		{1, "typo — (uses deploy_prod)"},
		{2, "ok (uses deploy_prod, write_file)"},
		{2, "(uses write_file)"},
	} {
		_, _, err := s.MoveStep(ctx, plan.StepMove{Name: "fix", Step: tc.step, State: plan.StepInProgress, Note: tc.note, By: "w1"})
		var pe *plan.Error
		require.True(t, errors.As(err, &pe), "%q: %v", tc.note, err)
		assert.Equal(t, plan.CodeInvalidArgument, pe.Code, tc.note)
		assert.Equal(t, "note_uses", pe.Reason, tc.note)
	}
	cur, err := s.Get(ctx, "fix")
	require.NoError(t, err)
	assert.Equal(t, p.Revision, cur.Revision, "nothing was written")
	_, st, err := s.MoveStep(ctx, plan.StepMove{Name: "fix", Step: 2, State: plan.StepInProgress, Note: "going (carefully)", By: "w1"})
	require.NoError(t, err, "a note that leaves the tools as they were is fine")
	assert.Equal(t, []string{"deploy_prod"}, st.Uses)
}
