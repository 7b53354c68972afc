package plan_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/api"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// personRun runs one ChatModelAgent named name, in lang, with the plan middleware over s
// and returns its tool results.
func personRun(t *testing.T, s *plan.Store, name string, lang adk.Language, turns ...plantest.Turn) []string {
	t.Helper()
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Store: s, AgentName: name, Language: lang})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: name, Description: "works",
		Instruction: "You work.", Model: plantest.NewScriptedModel(turns...), Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 20})
	require.NoError(t, err)
	return plantest.RunAgent(t, ctx, agent, "go")
}

func langs() []adk.Language { return []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} }

// A rejection is a change of its own: kept in History with who rejected and why, delivered
// by Watch, carried by the plan until a decision or a new request; a rejection of a
// revision the plan has moved past writes nothing.
func TestARejectionIsKeptWithItsAuthorAndFeedback(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	s := storeOn(t, backend, "")
	other, err := plan.NewStore(&plan.StoreConfig{Backend: backend}) // another host on the storage
	require.NoError(t, err)
	_, err = s.Put(ctx, plan.Update{Name: "release", Content: ptr(approvalPlan)})
	require.NoError(t, err)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	changes, err := other.Watch(wctx, plan.WatchOptions{Interval: 5 * time.Millisecond})
	require.NoError(t, err)

	_, err = s.Reject(ctx, "release", 2, "alice", "too late")
	assert.Equal(t, plan.CodeRevisionConflict, plan.CodeOf(err), "a person rejects what they saw")
	_, err = s.Reject(ctx, "release", 1, " ", "who?")
	assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err))
	_, err = s.Reject(ctx, "release", 1, "alice", strings.Repeat("x", 9<<10))
	assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err))
	p, err := s.Reject(ctx, "release", 1, "alice", "Add a rollback step first")
	require.NoError(t, err)
	assert.EqualValues(t, 2, p.Revision)
	assert.Equal(t, approvalPlan, p.Content, "the body stays as it was")
	require.NotNil(t, p.Rejection)
	assert.Equal(t, api.Rejection{Revision: 1, By: "alice", At: p.Rejection.At, Feedback: "Add a rollback step first"}, *p.Rejection)

	select {
	case c := <-changes:
		assert.Equal(t, plan.ActionReject, c.Action)
		assert.Equal(t, "alice", c.Actor)
		assert.EqualValues(t, 2, c.Revision)
	case <-time.After(10 * time.Second):
		t.Fatal("Watch delivered no rejection")
	}
	hist, err := other.History(ctx, "release")
	require.NoError(t, err)
	require.Len(t, hist, 2)
	assert.Equal(t, plan.ActionReject, hist[0].Action)
	assert.Equal(t, "alice", hist[0].Author)
	assert.False(t, hist[0].ByAgent, "a person's change")
	require.NotNil(t, hist[0].Rejection)
	assert.Equal(t, "Add a rollback step first", hist[0].Rejection.Feedback)
	got, err := other.Get(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, p.Rejection, got.Rejection, "every Store reads the feedback")
	d, err := other.WaitDecision(ctx, "release", 1)
	require.NoError(t, err)
	assert.Equal(t, plan.ApprovalDecision{By: "alice", Feedback: "Add a rollback step first"}, d)

	approved, err := s.Approve(ctx, "release", 2, "bob")
	require.NoError(t, err)
	assert.Nil(t, approved.Rejection, "an approval ends the rejection")
}

// WaitDecision returns a decision made before it was called while the plan shows it, one
// made while it waits, and canceled when its context ends first.
func TestWaitDecisionReturnsTheFirstDecisionOnTheRevision(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	s := storeOn(t, backend, "")
	person := storeOn(t, backend, "")
	_, err := s.Put(ctx, plan.Update{Name: "release", Content: ptr(approvalPlan)})
	require.NoError(t, err)

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = s.WaitDecision(short, "release", 1)
	cancel()
	assert.Equal(t, plan.CodeCanceled, plan.CodeOf(err), "no decision yet")
	_, err = s.WaitDecision(ctx, "nope", 1)
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
	_, err = s.WaitDecision(ctx, "release", 0)
	assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err))

	done := make(chan plan.ApprovalDecision, 1)
	go func() {
		d, err := s.WaitDecision(ctx, "release", 1)
		assert.NoError(t, err)
		done <- d
	}()
	time.Sleep(20 * time.Millisecond)
	_, err = person.SetStatus(ctx, "release", "reviewed", nil) // not a decision
	require.NoError(t, err)
	_, err = person.Approve(ctx, "release", 2, "ana") // a later revision than asked
	require.NoError(t, err)
	select {
	case d := <-done:
		assert.Equal(t, plan.ApprovalDecision{Approved: true, By: "ana"}, d)
	case <-time.After(10 * time.Second):
		t.Fatal("WaitDecision did not return on an approval")
	}
	d, err := s.WaitDecision(ctx, "release", 2)
	require.NoError(t, err)
	assert.True(t, d.Approved, "a decision made before the call counts")
}

// A plan a run waits on says so, which agent and since when, in its Summary; the decision
// ends the wait.
func TestAPlanAWaitingRunSaysSoInItsSummary(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	before := time.Now().UTC()
	paused := r.start(r.runner(plantest.NewScriptedModel(
		writePlanCall("release", approvalPlan, 0),
		plantest.CallTool("request_plan_approval", `{"name":"release"}`),
		plantest.Answer("ok"),
	)))
	require.Len(t, paused, 1)
	list, err := r.store.ListPage(r.ctx, plan.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Plans, 1)
	w := list.Plans[0].Waiting
	require.NotNil(t, w, "the plan says a run waits on it")
	assert.Equal(t, "planner", w.Agent)
	assert.Equal(t, paused[0].req.Revision, w.Revision)
	assert.False(t, w.Since.Before(before.Add(-time.Second)))
	_, err = r.store.Approve(r.ctx, "release", w.Revision, "ana")
	require.NoError(t, err)
	list, err = r.store.ListPage(r.ctx, plan.ListOptions{})
	require.NoError(t, err)
	assert.Nil(t, list.Plans[0].Waiting, "the decision ends the wait")
}

// A person's change fences the agents: an agent's stale move that would commute past it is
// refused with revision_conflict telling it to read the change with read_plan
// since_revision; after reading it the agent goes on. Another agent's change does not fence.
func TestAPersonsEditFencesTheAgentsUntilTheyReadIt(t *testing.T) {
	for _, lang := range langs() {
		ctx := context.Background()
		s := storeOn(t, plan.NewMemoryBackend(), "")
		body := "# Ship\n- [ ] build\n- [ ] test\n- [ ] deploy\n"
		_, err := s.Put(ctx, plan.Update{Name: "ship", Content: &body}) // r1
		require.NoError(t, err)

		// Another agent's move of another step: w1's stale move commutes past it.
		personRun(t, s, "w2", lang, plantest.CallTool("update_plan_step", `{"name":"ship","step":2,"status":"in_progress"}`), plantest.Answer("ok")) // r2
		out := personRun(t, s, "w1", lang,
			plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"in_progress","last_known_revision":1}`), // r3
			plantest.Answer("ok"))
		assert.Empty(t, errorCode(t, out[0]), "an agent's change does not fence: %s", out[0])

		// A person hands step 2 over: w1's stale move does not go past it.
		_, _, err = s.MoveStep(plan.WithActor(ctx, "alice"), plan.StepMove{Name: "ship", Step: 2, State: plan.StepInProgress, By: "bob", Takeover: true}) // r4
		require.NoError(t, err)
		out = personRun(t, s, "w1", lang,
			plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"completed","last_known_revision":3}`),
			plantest.CallTool("read_plan", `{"name":"ship","since_revision":3}`),
			plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"completed","last_known_revision":4}`),
			plantest.Answer("ok"))
		require.Len(t, out, 3)
		code, msg := errorMessage(t, out[0])
		assert.Equal(t, plan.CodeRevisionConflict, code)
		assert.Contains(t, msg, "since_revision 3")
		assert.Contains(t, msg, "alice")
		assert.Equal(t, lang == adk.LanguageChinese, hasHan(msg), msg)
		assert.Empty(t, errorCode(t, out[2]), "after reading, the agent goes on")
		p, err := s.Get(ctx, "ship")
		require.NoError(t, err)
		assert.Contains(t, p.Content, "- [x] build")
		hist, err := s.History(ctx, "ship")
		require.NoError(t, err)
		assert.True(t, hist[0].ByAgent)
		assert.False(t, hist[1].ByAgent, "the history records the person's change as a host's")
		assert.Equal(t, "alice", hist[1].Author)
	}
}

// Leases a model can use: a refusal caused by a hold with a lease says when it runs out;
// a worker whose hold expired and was taken is told so, and by whom; History and Change
// record whose hold expired.
func TestLeaseRefusalsSayWhenTheHoldRunsOutAndWhoTookAnExpiredOne(t *testing.T) {
	const ttl = 300 * time.Millisecond
	for _, lang := range langs() {
		ctx := context.Background()
		s, _ := newStoreWith(t, plan.StoreConfig{HoldTTL: ttl}, "lease", "# Lease\n- [ ] one\n- [ ] two (after 1)\n")
		_, _, err := s.MoveStep(ctx, plan.StepMove{Name: "lease", Step: 1, State: plan.StepInProgress, By: "w1"})
		require.NoError(t, err)
		held, err := s.Get(ctx, "lease")
		require.NoError(t, err)

		out := personRun(t, s, "w2", lang,
			plantest.CallTool("update_plan_step", `{"name":"lease","step":1,"status":"completed"}`),
			plantest.CallTool("update_plan_step", `{"name":"lease","step":2,"status":"in_progress"}`),
			plantest.Answer("later"))
		require.Len(t, out, 2)
		for i, want := range []plan.Code{plan.CodeStepHeld, plan.CodeStepBlocked} {
			code, msg := errorMessage(t, out[i])
			assert.Equal(t, want, code)
			end := held.UpdatedAt.Add(ttl).UTC().Format(time.RFC3339)
			assert.Contains(t, out[i], `"expires_at":"`+end+`"`)
			assert.Contains(t, msg, end, "the model is told when the hold runs out")
			assert.Equal(t, lang == adk.LanguageChinese, hasHan(msg), msg)
		}

		time.Sleep(ttl + 50*time.Millisecond)
		out = personRun(t, s, "w2", lang, plantest.CallTool("update_plan_step", `{"name":"lease","step":1,"status":"completed"}`), plantest.Answer("done"))
		require.Empty(t, errorCode(t, out[0]), "an expired hold is taken without a takeover")
		out = personRun(t, s, "w1", lang, plantest.CallTool("update_plan_step", `{"name":"lease","step":1,"status":"completed"}`), plantest.Answer("done"))
		code, msg := errorMessage(t, out[0])
		assert.Equal(t, plan.CodeIllegalTransition, code)
		assert.Contains(t, msg, `"w2"`, "the late worker is told who took its step")
		assert.NotContains(t, msg, "already", msg)
		assert.Equal(t, lang == adk.LanguageChinese, hasHan(msg), msg)

		hist, err := s.History(ctx, "lease")
		require.NoError(t, err)
		assert.Equal(t, "w1", hist[0].Expired, "History says whose hold expired")
		assert.Equal(t, 1, hist[0].ExpiredStep)
	}
}

// A mover refused for another reason than a taken hold is told that reason.
func TestAHoldTakenIsOnlyToldToItsHolder(t *testing.T) {
	ctx := context.Background()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend(), HoldTTL: time.Hour})
	require.NoError(t, err)
	_, err = s.Put(ctx, plan.Update{Name: "p", Content: ptr("- [ ] one\n")})
	require.NoError(t, err)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "p", Step: 1, State: plan.StepCompleted, By: "w1"})
	require.NoError(t, err)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "p", Step: 1, State: plan.StepCompleted, By: "w2"})
	var pe *plan.Error
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, "same_state", pe.Reason)
	assert.True(t, pe.Expires.IsZero())
}
