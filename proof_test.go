package plan_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// proofBackends are the root module's backends the proof of done is tested on.
func proofBackends(t *testing.T) map[string]plan.Backend {
	t.Helper()
	local, err := plan.NewLocalBackend(t.TempDir())
	require.NoError(t, err)
	return map[string]plan.Backend{"memory": plan.NewMemoryBackend(), "local": local}
}

// proofLanguages are the languages a model reads the proof texts in, with a word each
// error's advice has in that language.
var proofLanguages = []proofLanguage{{"en", adk.LanguageEnglish, "evidence"}, {"zh", adk.LanguageChinese, "证据"}}

// proofLanguage is one of proofLanguages.
type proofLanguage struct {
	name string
	lang adk.Language
	word string // the word for evidence in that language
}

// eachProofRun runs f as a subtest for every proof language and backend, on a Store that
// holds proofPlan as "release".
func eachProofRun(t *testing.T, f func(t *testing.T, ctx context.Context, lg proofLanguage, store *plan.Store)) {
	for _, lg := range proofLanguages {
		for bname, backend := range proofBackends(t) {
			t.Run(lg.name+"/"+bname, func(t *testing.T) {
				ctx := context.Background()
				f(t, ctx, lg, proofStore(t, ctx, backend))
			})
		}
	}
}

// proofStore returns a Store on backend that holds proofPlan as "release".
func proofStore(t *testing.T, ctx context.Context, backend plan.Backend) *plan.Store {
	return releaseStore(t, ctx, backend, proofPlan)
}

// releaseStore returns a Store on backend that holds body as plan "release".
func releaseStore(t *testing.T, ctx context.Context, backend plan.Backend, body string) *plan.Store {
	t.Helper()
	store := storeOn(t, backend, "")
	_, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
	require.NoError(t, err)
	return store
}

// approvedReleaseStore returns releaseStore's Store with its plan approved by alice.
func approvedReleaseStore(t *testing.T, ctx context.Context, backend plan.Backend, body string) *plan.Store {
	t.Helper()
	store := releaseStore(t, ctx, backend, body)
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	_, err = store.Approve(ctx, "release", p.Revision, "alice")
	require.NoError(t, err)
	return store
}

// billed is a turn that reports a provider's usage, as every turn of these runs does.
func billed(turn plantest.Turn) plantest.Turn {
	return plantest.WithUsage(turn, plantest.Usage{PromptTokens: 1000, CompletionTokens: 50})
}

// resultField reads one field of a tool result.
func resultField(t *testing.T, result, field string) any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(result), &m), result)
	return m[field]
}

const proofPlan = "# Release\n- [ ] Build the binaries\n- [ ] Publish the release (review)\n"

// A completion's evidence is kept with the step in the plan: read_plan shows it, the Store
// reads it back as Step.Evidence, and the revision it made keeps it in History.
func TestAnAgentsEvidenceIsKeptWithTheStep(t *testing.T) {
	eachProofRun(t, func(t *testing.T, ctx context.Context, lg proofLanguage, store *plan.Store) {
		m := plantest.NewScriptedModel(
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)),
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"go build ./... exit 0\nsha256 9f2c"}`)),
			billed(plantest.CallTool(plan.ToolReadPlan, `{"name":"release"}`)),
		)
		mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, RequireEvidence: true})
		require.NoError(t, err)
		results := toolResults(runAgent(t, m, mw))
		require.Len(t, results, 3)
		assert.Equal(t, "", errorCode(t, results[1]), results[1])
		assert.Regexp(t, `Build the binaries \(@worker-1\) — cost: 1000\+50 tokens, 1 call, 1 tool, \d+s — evidence: go build \./\.\.\. exit 0 sha256 9f2c\n`, resultField(t, results[2], "content"))

		p, err := store.Get(ctx, "release")
		require.NoError(t, err)
		st := plan.ParseSteps(p.Content)[0]
		assert.Equal(t, plan.StepCompleted, st.State)
		assert.Equal(t, "go build ./... exit 0 sha256 9f2c", st.Evidence)
		old, err := store.GetRevision(ctx, "release", p.Revision)
		require.NoError(t, err)
		assert.Equal(t, "go build ./... exit 0 sha256 9f2c", plan.ParseSteps(old.Content)[0].Evidence)
	})
}

// Under Config.RequireEvidence a completion without evidence is refused with
// evidence_required in the model's language, and nothing is written: the step stays in
// progress with its holder.
func TestACompletionWithoutEvidenceIsRefusedWhenEvidenceIsRequired(t *testing.T) {
	eachProofRun(t, func(t *testing.T, ctx context.Context, lg proofLanguage, store *plan.Store) {
		m := plantest.NewScriptedModel(
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)),
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"  "}`)),
		)
		mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, RequireEvidence: true})
		require.NoError(t, err)
		results := toolResults(runAgent(t, m, mw))
		require.Len(t, results, 2)
		code, msg := errorMessage(t, results[1])
		assert.Equal(t, plan.CodeEvidenceRequired, code)
		assert.Contains(t, msg, lg.word)
		p, err := store.Get(ctx, "release")
		require.NoError(t, err)
		assert.Equal(t, int64(2), p.Revision, "nothing written")
		st := plan.ParseSteps(p.Content)[0]
		assert.Equal(t, plan.StepInProgress, st.State)
		assert.Equal(t, "worker-1", st.Holder)
	})
}

// Evidence is written by a step move, so a completion with evidence keeps the approval as a
// note does; evidence that cannot be read back whole, or that comes with a move finishing
// nothing, is refused and nothing is written.
func TestEvidenceKeepsTheApprovalAndIsBounded(t *testing.T) {
	for bname, backend := range proofBackends(t) {
		t.Run(bname, func(t *testing.T) {
			ctx := context.Background()
			store := approvedReleaseStore(t, ctx, backend, proofPlan)
			_, _, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepInProgress, By: "w1"})
			require.NoError(t, err)
			for _, bad := range []plan.StepMove{
				{Name: "release", Step: 1, State: plan.StepCompleted, By: "w1", Evidence: strings.Repeat("x", 1001)},
				{Name: "release", Step: 1, State: plan.StepCompleted, By: "w1", Evidence: "a — evidence: b"},
				{Name: "release", Step: 1, State: plan.StepCompleted, By: "w1", Evidence: "done (@w2)"},
				{Name: "release", Step: 1, State: plan.StepCompleted, By: "w1", Evidence: "ran (after 2)"},
				{Name: "release", Step: 2, State: plan.StepInProgress, By: "w1", Evidence: "started"},
			} {
				_, _, err := store.MoveStep(ctx, bad)
				assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err), "%q", bad.Evidence)
			}
			before, err := store.Get(ctx, "release")
			require.NoError(t, err)
			p, st, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted, By: "w1", Evidence: "ok: 12 passed"})
			require.NoError(t, err)
			assert.Equal(t, before.Revision+1, p.Revision, "the refused moves wrote nothing")
			assert.Equal(t, "ok: 12 passed", st.Evidence)
			require.NotNil(t, p.Approval, "the approval is kept")
		})
	}
}

// A verifier's error refuses the completion with not_verified and the error's text, in the
// model's language; nothing is written and the step stays in progress with its holder. Once
// the verifier agrees, the completion lands, and the verifier saw the completion as asked.
func TestAVerifierRefusesACompletionAndTheStepStaysWithItsHolder(t *testing.T) {
	eachProofRun(t, func(t *testing.T, ctx context.Context, lg proofLanguage, store *plan.Store) {
		var mu sync.Mutex
		var seen []plan.Completion
		verify := func(_ context.Context, c plan.Completion) error {
			mu.Lock()
			seen = append(seen, c)
			mu.Unlock()
			if !strings.Contains(c.Evidence, "exit 0") {
				return errors.New("go test ./... exited 1: 3 of 40 tests failed")
			}
			return nil
		}
		m := plantest.NewScriptedModel(
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)),
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"looks fine"}`)),
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"go test ./... exit 0"}`)),
		)
		mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, Verify: verify})
		require.NoError(t, err)
		results := toolResults(runAgent(t, m, mw))
		require.Len(t, results, 3)
		code, msg := errorMessage(t, results[1])
		assert.Equal(t, plan.CodeNotVerified, code)
		assert.Contains(t, msg, "go test ./... exited 1: 3 of 40 tests failed")
		if lg.name == "zh" {
			assert.Contains(t, msg, "检查未通过")
		}
		assert.Equal(t, "", errorCode(t, results[2]), results[2])

		require.Len(t, seen, 2)
		assert.Equal(t, plan.Completion{Plan: "release", Step: 1, Text: "Build the binaries", Evidence: "looks fine", Agent: "worker-1", Revision: 2}, seen[0])
		h, err := store.GetRevision(ctx, "release", 2)
		require.NoError(t, err)
		st := plan.ParseSteps(h.Content)[0]
		assert.Equal(t, plan.StepInProgress, st.State, "the refused completion wrote nothing")
		assert.Equal(t, "worker-1", st.Holder)
		p, err := store.Get(ctx, "release")
		require.NoError(t, err)
		assert.Equal(t, int64(3), p.Revision)
		assert.Equal(t, "go test ./... exit 0", plan.ParseSteps(p.Content)[0].Evidence)
	})
}

// A step ending "(review)" completed by its holder awaits review, in progress and held by
// nobody; its doer cannot complete it (review_own, in the model's language), another agent
// can, and so can a person through the Store.
func TestAReviewStepIsCompletedOnlyBySomeoneElse(t *testing.T) {
	eachProofRun(t, func(t *testing.T, ctx context.Context, lg proofLanguage, store *plan.Store) {
		doer := plantest.NewScriptedModel(
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"in_progress"}`)),
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed","evidence":"v2.0 is on the releases page"}`)),
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed"}`)),
		)
		mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, RequireEvidence: true})
		require.NoError(t, err)
		results := toolResults(runAgent(t, doer, mw))
		require.Len(t, results, 3)
		review, _ := resultField(t, results[1], "review").(string)
		assert.Contains(t, review, map[string]string{"en": "review", "zh": "复核"}[lg.name])
		code, msg := errorMessage(t, results[2])
		assert.Equal(t, plan.CodeIllegalTransition, code)
		assert.Contains(t, msg, map[string]string{"en": "review", "zh": "复核"}[lg.name])

		p, err := store.Get(ctx, "release")
		require.NoError(t, err)
		st := plan.ParseSteps(p.Content)[1]
		assert.Equal(t, plan.StepInProgress, st.State)
		assert.True(t, st.AwaitingReview)
		assert.Equal(t, "worker-1", st.DoneBy)
		assert.Equal(t, "", st.Holder)
		assert.Equal(t, "v2.0 is on the releases page", st.Evidence)

		reviewer := plantest.NewScriptedModel(
			billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed"}`)),
		)
		mw2, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-2", Language: lg.lang, RequireEvidence: true})
		require.NoError(t, err)
		results = toolResults(runAgent(t, reviewer, mw2))
		require.Len(t, results, 1)
		assert.Equal(t, "", errorCode(t, results[0]), results[0])
		p, err = store.Get(ctx, "release")
		require.NoError(t, err)
		st = plan.ParseSteps(p.Content)[1]
		assert.Equal(t, plan.StepCompleted, st.State)
		assert.False(t, st.AwaitingReview)
		assert.True(t, strings.HasSuffix(st.Text, "(reviewed by @worker-2)"), st.Text)
		assert.Equal(t, "v2.0 is on the releases page", st.Evidence)
	})
}

// A person completes a step awaiting review through the Store, and completes a step asking
// for review directly: only agents' completions wait for review.
func TestAPersonCompletesAReview(t *testing.T) {
	for bname, backend := range proofBackends(t) {
		t.Run(bname, func(t *testing.T) {
			ctx := context.Background()
			store := releaseStore(t, ctx, backend, "- [ ] Ship (review)\n- [ ] Tell (review)\n")
			mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1"})
			require.NoError(t, err)
			m := plantest.NewScriptedModel(
				billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)),
				billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed"}`)),
			)
			runAgent(t, m, mw)
			_, st, err := store.MoveStep(plan.WithActor(ctx, "alice"), plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted})
			require.NoError(t, err)
			assert.Equal(t, plan.StepCompleted, st.State)
			assert.Regexp(t, `^Ship \(review\) \(@worker-1\) — cost: 1000\+50 tokens, 1 call, 1 tool, \d+s \(reviewed by @alice\)$`, st.Text)
			_, st, err = store.MoveStep(plan.WithActor(ctx, "alice"), plan.StepMove{Name: "release", Step: 2, State: plan.StepCompleted})
			require.NoError(t, err)
			assert.Equal(t, plan.StepCompleted, st.State)
			assert.False(t, st.AwaitingReview)
		})
	}
}

// A step whose own text contains " — " still asks for review and keeps its budget: its doer's
// completion awaits review, as for any other "(review)" step.
func TestAReviewStepWhoseTextHasADashStillAwaitsReview(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] Ship v2 — the web part (review) (budget 10m)\n"
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
	st := plan.ParseSteps(body)[0]
	assert.True(t, st.Review)
	require.NotNil(t, st.Budget)
	assert.Equal(t, 10*time.Minute, st.Budget.Time)

	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"deployed"}`),
	)
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1"})
	require.NoError(t, err)
	results := toolResults(runAgent(t, m, mw))
	require.Len(t, results, 2)
	assert.Equal(t, "", errorCode(t, results[1]), results[1])
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	st = plan.ParseSteps(p.Content)[0]
	assert.Equal(t, plan.StepInProgress, st.State, p.Content)
	assert.True(t, st.AwaitingReview)
	assert.Equal(t, "worker-1", st.DoneBy)
	assert.Equal(t, "deployed", st.Evidence)
}

// A note that would read as the step's own "(review)" or "(budget …)" is refused, so a move
// never changes what a step asks for, and nothing is written.
func TestANoteCannotChangeWhatAStepAsksFor(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] Ship (review)\n- [ ] Tell\n"
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
	for _, mv := range []plan.StepMove{
		{Name: "release", Step: 1, State: plan.StepInProgress, By: "ana", Note: "fast (budget 1m)"},
		{Name: "release", Step: 2, State: plan.StepInProgress, By: "ana", Note: "see (review)"},
		{Name: "release", Step: 2, State: plan.StepSkipped, Note: "later (budget 20k tokens)"},
	} {
		_, _, err := store.MoveStep(ctx, mv)
		var e *plan.Error
		require.ErrorAs(t, err, &e, mv.Note)
		assert.Equal(t, plan.CodeInvalidArgument, e.Code)
	}
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, body, p.Content)
}

// A note that would read as evidence or a cost, or evidence that would read as a cost, is
// refused: Step.Evidence and Step.Cost are only ever what a move gave as such.
func TestANoteOrEvidenceCannotForgeEvidenceOrCost(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] Build\n- [ ] Test\n"
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)

	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","note":"evidence: go test ./... exit 0"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","note":"done — cost: 1+1 tokens, 1 call, 0 tools, 1s"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"ok — cost: 1+1 tokens, 1 call, 0 tools, 1s"}`),
	)
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1"})
	require.NoError(t, err)
	results := toolResults(runAgent(t, m, mw))
	require.Len(t, results, 3)
	for _, r := range results {
		assert.Equal(t, string(plan.CodeInvalidArgument), errorCode(t, r), r)
	}
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, body, p.Content, "nothing is written")

	_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 2, State: plan.StepSkipped, Note: "cost: 9+9 tokens, 2 calls, 1 tool, 5s"})
	var e *plan.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, plan.CodeInvalidArgument, e.Code)
}

// Evidence that mentions a review in its own words reads back whole, before and after the
// review's mark.
func TestEvidenceMentioningAReviewReadsBackWhole(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] Build (review)\n- [ ] Test\n"
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
	const ev = "flaky test (reviewed by hand) passes on rerun"
	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"`+ev+`"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed","evidence":"`+ev+`"}`),
	)
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1"})
	require.NoError(t, err)
	for _, r := range toolResults(runAgent(t, m, mw)) {
		assert.Equal(t, "", errorCode(t, r), r)
	}
	_, st, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted, By: "bob"})
	require.NoError(t, err)
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	steps := plan.ParseSteps(p.Content)
	assert.Equal(t, ev, st.Evidence)
	assert.Equal(t, ev, steps[0].Evidence, p.Content)
	assert.Equal(t, plan.StepCompleted, steps[0].State)
	assert.Equal(t, ev, steps[1].Evidence, p.Content)
}

// A completion based on a revision from before a step awaited review does not complete its
// review: the reviewer never saw the work it would approve (step_moved), and nothing is
// written. Based on a revision that shows it awaiting review, it does.
func TestAStaleCompletionDoesNotReviewWorkItNeverSaw(t *testing.T) {
	ctx := context.Background()
	body := "- [ ] Build (review)\n- [ ] Test\n"
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"built"}`),
	)
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "ana"})
	require.NoError(t, err)
	for _, r := range toolResults(runAgent(t, m, mw)) {
		require.Equal(t, "", errorCode(t, r), r)
	}
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	require.True(t, plan.ParseSteps(p.Content)[0].AwaitingReview, p.Content)
	seen := p.Revision - 1 // step 1 held by ana, its work not done yet

	_, _, err = store.MoveStep(plan.WithActor(ctx, "bob"), plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted, IfRevision: &seen})
	var e *plan.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, plan.CodeRevisionConflict, e.Code)
	now, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, p.Content, now.Content, "nothing is written")

	_, st, err := store.MoveStep(plan.WithActor(ctx, "bob"), plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted, IfRevision: &now.Revision})
	require.NoError(t, err)
	assert.Equal(t, plan.StepCompleted, st.State)
	assert.Equal(t, "built", st.Evidence)
}

// A lean worker's model sees only update_plan_step and read_plan of the plan tools; it takes
// and finishes steps with every guard on (the gate, evidence), and a call to another plan
// tool is tool_not_available, in its language.
func TestALeanWorkerTakesAndFinishesStepsWithEveryGuard(t *testing.T) {
	for _, lg := range proofLanguages {
		for bname, backend := range proofBackends(t) {
			t.Run(lg.name+"/"+bname, func(t *testing.T) {
				ctx := context.Background()
				store := approvedReleaseStore(t, ctx, backend, "# Release\n- [ ] Build the binaries (uses probe)\n- [ ] Publish the release (review)\n")
				m := plantest.NewScriptedModel(
					billed(plantest.CallTool("probe", `{"what":"early"}`)),
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","status":"in_progress"}`)),
					billed(plantest.CallTool("probe", `{"what":"build"}`)),
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed"}`)),
					billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"make exit 0"}`)),
					billed(plantest.CallTool(plan.ToolWritePlan, `{"name":"release","content":"- [x] all done"}`)),
				)
				mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, LeanWorker: true,
					GatedTools: []string{"probe"}, RequireEvidence: true})
				require.NoError(t, err)
				results := toolResultsOf(t, runWorker(t, m, false, mw))
				require.Len(t, results, 6)
				assert.Equal(t, string(plan.CodeNotApproved), errorCode(t, results[0]), "the gate holds: no step taken yet")
				assert.Equal(t, "", errorCode(t, results[1]), results[1])
				assert.Equal(t, "ok", results[2])
				assert.Equal(t, string(plan.CodeEvidenceRequired), errorCode(t, results[3]))
				assert.Equal(t, "", errorCode(t, results[4]), results[4])
				code, msg := errorMessage(t, results[5])
				assert.Equal(t, plan.CodeToolNotAvailable, code)
				assert.Contains(t, msg, map[string]string{"en": "only take and finish steps", "zh": "只负责领取和完成步骤"}[lg.name])

				for _, call := range m.Calls() {
					assert.ElementsMatch(t, []string{"probe", plan.ToolUpdatePlanStep, plan.ToolReadPlan}, call.ToolNames())
				}
				cur, err := store.Get(ctx, "release")
				require.NoError(t, err)
				st := plan.ParseSteps(cur.Content)[0]
				assert.Equal(t, plan.StepCompleted, st.State)
				assert.Equal(t, "make exit 0", st.Evidence)
			})
		}
	}
}
