package plan_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// evidenceResults runs agent under Config.RequireEvidence on store, in lg's language, through
// turns, each billed, and returns its tool results, one a turn.
func evidenceResults(t *testing.T, store *plan.Store, agent string, lg proofLanguage, turns ...plantest.Turn) []string {
	t.Helper()
	for i, turn := range turns {
		turns[i] = billed(turn)
	}
	mw, err := plan.New(context.Background(), &plan.Config{Store: store, AgentName: agent, Language: lg.lang, RequireEvidence: true})
	require.NoError(t, err)
	results := toolResults(runAgent(t, plantest.NewScriptedModel(turns...), mw))
	require.Len(t, results, len(turns))
	return results
}

// A completion's evidence is kept with the step in the plan: read_plan shows it, the Store
// reads it back as Step.Evidence, and the revision it made keeps it in History.
func TestAnAgentsEvidenceIsKeptWithTheStep(t *testing.T) {
	eachProofRun(t, func(t *testing.T, ctx context.Context, lg proofLanguage, store *plan.Store) {
		results := evidenceResults(t, store, "worker-1", lg,
			plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`),
			plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"go build ./... exit 0\nsha256 9f2c"}`),
			plantest.CallTool(plan.ToolReadPlan, `{"name":"release"}`),
		)
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
		results := evidenceResults(t, store, "worker-1", lg,
			plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`),
			plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"  "}`),
		)
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
// nobody, its line carrying no holder's tag (the review mark names the doer); its doer cannot complete it (review_own, in the model's language), another agent
// can, and so can a person through the Store.
func TestAReviewStepIsCompletedOnlyBySomeoneElse(t *testing.T) {
	eachProofRun(t, func(t *testing.T, ctx context.Context, lg proofLanguage, store *plan.Store) {
		results := evidenceResults(t, store, "worker-1", lg,
			plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"in_progress"}`),
			plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed","evidence":"v2.0 is on the releases page"}`),
			plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed"}`),
		)
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
		assert.NotContains(t, p.Content, "(@worker-1)", "nobody holds it, and the file says so")
		assert.Equal(t, "v2.0 is on the releases page", st.Evidence)

		results = evidenceResults(t, store, "worker-2", lg,
			plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed"}`),
		)
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
			assert.Regexp(t, `^Ship \(review\) — cost: 1000\+50 tokens, 1 call, 1 tool, \d+s \(reviewed by @alice\)$`, st.Text)
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

// A lean worker is taught evidence only where a completion needs it (Config.RequireEvidence)
// or a verifier reads it (Config.Verify): otherwise neither its instruction nor its
// update_plan_step names evidence, and it is shown no note or last_known_revision; a call
// that passes them anyway is read as always.
func TestALeanWorkerIsTaughtEvidenceOnlyWhereACompletionNeedsIt(t *testing.T) {
	ctx := context.Background()
	verify := func(context.Context, plan.Completion) error { return nil }
	for _, lg := range proofLanguages {
		for _, tc := range []struct {
			name          string
			cfg           plan.Config
			shown, taught bool
		}{
			{"default", plan.Config{}, false, false},
			{"required", plan.Config{RequireEvidence: true}, true, true},
			{"verified", plan.Config{Verify: verify}, true, false},
		} {
			store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
			require.NoError(t, err)
			body := "- [ ] Build\n"
			_, err = store.Put(ctx, plan.Update{Name: "p", Content: &body})
			require.NoError(t, err)
			cfg := tc.cfg
			cfg.Store, cfg.AgentName, cfg.Language, cfg.LeanWorker = store, "worker-1", lg.lang, true
			mw, err := plan.New(ctx, &cfg)
			require.NoError(t, err)
			ctx, rc, tools := beforeAgentTools(t, ctx, mw)
			info, err := tools[plan.ToolUpdatePlanStep].Info(ctx)
			require.NoError(t, err)
			js, err := info.ParamsOneOf.ToJSONSchema()
			require.NoError(t, err)
			_, shown := js.Properties.Get("evidence")
			assert.Equal(t, tc.shown, shown, "%s, %s: evidence in the schema", lg.name, tc.name)
			for _, hidden := range []string{"note", "last_known_revision"} {
				_, ok := js.Properties.Get(hidden)
				assert.False(t, ok, "%s, %s: %s in the schema", lg.name, tc.name, hidden)
			}
			taught := strings.Contains(rc.Instruction, "evidence") || strings.Contains(rc.Instruction, lg.word)
			assert.Equal(t, tc.taught, taught, "%s, %s: %s", lg.name, tc.name, rc.Instruction)

			out, err := tools[plan.ToolUpdatePlanStep].InvokableRun(ctx, `{"name":"p","step":1,"status":"completed","note":"by hand","evidence":"make exit 0","last_known_revision":1}`)
			require.NoError(t, err)
			require.Equal(t, "", errorCode(t, out), out)
			p, err := store.Get(ctx, "p")
			require.NoError(t, err)
			st := plan.ParseSteps(p.Content)[0]
			assert.Equal(t, "make exit 0", st.Evidence, "%s, %s", lg.name, tc.name)
			assert.Contains(t, st.Text, "by hand", "%s, %s", lg.name, tc.name)
		}
	}
}

// fixPlan has a step that a passing run of run_tests proves, after the last edit.
const fixPlan = "# Fix\n- [ ] Fix the parser (uses edit_file) (proof run_tests)\n- [ ] Tell the team\n"

// observedMark is the Store's mark of a passing run of run_tests on a step's line.
const observedMark = ` — observed: run_tests passed \d\d:\d\d:\d\dZ`

// callProbe is a tool that answers run(args); calls counts its calls.
type callProbe struct {
	name  string
	run   func(args string) string
	mu    sync.Mutex
	calls int
}

func (p *callProbe) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: p.name, Desc: "runs " + p.name,
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"arg": {Type: schema.String}})}, nil
}

func (p *callProbe) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	p.mu.Lock()
	p.calls++
	p.mu.Unlock()
	return p.run(args), nil
}

// testRunner is run_tests: it fails when its argument says "fail", and passes otherwise.
func testRunner() *callProbe {
	return &callProbe{name: "run_tests", run: func(args string) string {
		if strings.Contains(args, "fail") {
			return "FAIL: 1 of 12 tests failed"
		}
		return "ok: 12 passed"
	}}
}

// editor is edit_file: it always succeeds.
func editor() *callProbe {
	return &callProbe{name: "edit_file", run: func(string) string { return "edited" }}
}

// testsPassed is the host's Config.ProofResult: a run passed unless it says FAIL.
func testsPassed(_, result string) bool { return !strings.HasPrefix(result, "FAIL") }

// proofRun runs an agent called name with the plan middleware of cfg (after handlers before),
// the given tools and model, and returns its tool results.
func proofRun(t *testing.T, name string, cfg *plan.Config, m *plantest.ScriptedModel, before []adk.ChatModelAgentMiddleware, tools ...tool.BaseTool) []string {
	t.Helper()
	ctx := context.Background()
	cfg.AgentName = name
	mw, err := plan.New(ctx, cfg)
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: name, Description: "works", Instruction: "You work.", Model: m,
		Handlers: append(before, mw), MaxIterations: 40,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}}})
	require.NoError(t, err)
	return toolResults(drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "fix it")))
}

func call(name, args string) plantest.Turn { return plantest.CallTool(name, args) }

var (
	takeFix     = call(plan.ToolUpdatePlanStep, `{"name":"fix","step":1,"status":"in_progress"}`)
	completeFix = call(plan.ToolUpdatePlanStep, `{"name":"fix","step":1,"status":"completed","evidence":"go test ./... exit 0"}`)
	runTests    = call("run_tests", `{"arg":"./..."}`)
	failTests   = call("run_tests", `{"arg":"fail"}`)
	edit        = call("edit_file", `{"arg":"parser.go"}`)
)

// fixStep is step 1 of plan fix as stored.
func fixStep(t *testing.T, store *plan.Store) plan.Step {
	t.Helper()
	p, err := store.Get(context.Background(), "fix")
	require.NoError(t, err)
	return plan.ParseSteps(p.Content)[0]
}

// A "(proof run_tests)" step is refused (unproven, saying what to run, in the model's
// language) before any run, refused again when an edit came after the last passing run, and
// completes after a fresh one: its line then carries what the host observed, apart from the
// evidence the agent typed, in the plan and in read_plan.
func TestAProofStepCompletesOnlyOnAFreshPassingRun(t *testing.T) {
	for _, lg := range proofLanguages {
		for bname, backend := range proofBackends(t) {
			t.Run(lg.name+"/"+bname, func(t *testing.T) {
				store := fixStore(t, backend)
				m := plantest.NewScriptedModel(takeFix, completeFix, edit, runTests, edit, completeFix, failTests, completeFix, runTests, completeFix,
					call(plan.ToolReadPlan, `{"name":"fix"}`), plantest.Answer("done"))
				r := proofRun(t, "coder", &plan.Config{Store: store, Language: lg.lang, ProofResult: testsPassed}, m, nil, testRunner(), editor())
				require.Len(t, r, 11)
				hint, _ := resultField(t, r[0], "proof").(string)
				assert.Contains(t, hint, "run_tests", "taking the step says how it completes")
				for _, i := range []int{1, 5, 7} {
					code, msg := errorMessage(t, r[i])
					assert.Equal(t, plan.CodeUnproven, code, "result %d: %s", i, r[i])
					assert.Contains(t, msg, "run_tests", "it says what to run")
					assert.Equal(t, lg.name == "zh", hasHan(msg), msg)
				}
				assert.Equal(t, "", errorCode(t, r[9]), r[9])
				content, _ := resultField(t, r[10], "content").(string)
				assert.Regexp(t, `Fix the parser \(uses edit_file\) \(proof run_tests\) \(@coder\)`+observedMark+` — cost: .* — evidence: go test \./\.\.\. exit 0\n`, content)

				st := fixStep(t, store)
				assert.Equal(t, plan.StepCompleted, st.State)
				assert.Regexp(t, `^run_tests passed \d\d:\d\d:\d\dZ$`, st.Observed)
				assert.Equal(t, "go test ./... exit 0", st.Evidence)
				assert.Equal(t, []string{"run_tests"}, st.Proof)
			})
		}
	}
}

// Typed evidence, a note or verifier text never stand in for a run: evidence that says
// "observed: …" is evidence, the step stays unproven, and evidence or a note that would
// write the Store's mark is refused.
func TestTypedEvidenceSayingObservedDoesNotProveAStep(t *testing.T) {
	store := fixStore(t, plan.NewMemoryBackend())
	m := plantest.NewScriptedModel(takeFix,
		call(plan.ToolUpdatePlanStep, `{"name":"fix","step":1,"status":"completed","evidence":"observed: run_tests passed 12:03:04Z"}`),
		call(plan.ToolUpdatePlanStep, `{"name":"fix","step":1,"status":"completed","evidence":"ran — observed: run_tests passed 12:03:04Z"}`),
		call(plan.ToolUpdatePlanStep, `{"name":"fix","step":1,"status":"completed","note":"x — observed: run_tests passed 12:03:04Z"}`),
		plantest.Answer("done"))
	r := proofRun(t, "coder", &plan.Config{Store: store}, m, nil, testRunner(), editor())
	require.Len(t, r, 4)
	assert.Equal(t, string(plan.CodeUnproven), errorCode(t, r[1]), r[1])
	assert.Equal(t, string(plan.CodeInvalidArgument), errorCode(t, r[2]), r[2])
	assert.Equal(t, string(plan.CodeInvalidArgument), errorCode(t, r[3]), r[3])
	st := fixStep(t, store)
	assert.Equal(t, plan.StepInProgress, st.State)
	assert.Equal(t, "coder", st.Holder)
	assert.Empty(t, st.Observed)
}

// Only the Store writes what was observed: a plan written by a plan tool, or by the Store's
// Put, that adds or changes an observation mark is refused, and one that keeps it as it was
// goes through.
func TestAWrittenObservationMarkIsRefused(t *testing.T) {
	ctx := context.Background()
	store := fixStore(t, plan.NewMemoryBackend())
	forged := "# Fix\n- [x] Fix the parser (uses edit_file) (proof run_tests) — observed: run_tests passed 12:03:04Z\n- [ ] Tell the team\n"
	m := plantest.NewScriptedModel(
		call(plan.ToolWritePlan, `{"name":"fix","content":`+jsonString(forged)+`}`),
		call(plan.ToolWritePlan, `{"name":"forged","content":`+jsonString(forged)+`}`),
		plantest.Answer("done"))
	r := proofRun(t, "coder", &plan.Config{Store: store}, m, nil)
	require.Len(t, r, 2)
	for _, res := range r {
		code, msg := errorMessage(t, res)
		assert.Equal(t, plan.CodeInvalidArgument, code, res)
		assert.Contains(t, msg, "observed")
	}
	_, err := store.Put(ctx, plan.Update{Name: "other", Content: ptr(forged)})
	assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err))

	// The Store's own mark stays through a rewrite that keeps the line, and cannot be edited.
	m = plantest.NewScriptedModel(takeFix, runTests, completeFix, plantest.Answer("done"))
	proofRun(t, "coder", &plan.Config{Store: store}, m, nil, testRunner(), editor())
	p, err := store.Get(ctx, "fix")
	require.NoError(t, err)
	kept := p.Content + "- [ ] One more step\n"
	_, err = store.Put(ctx, plan.Update{Name: "fix", Content: &kept})
	require.NoError(t, err, "a rewrite that keeps the marked line as it was")
	changed := strings.Replace(kept, "run_tests passed", "run_tests passed 00:00:00Z, run_tests passed", 1)
	_, err = store.Put(ctx, plan.Update{Name: "fix", Content: &changed})
	assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err), "a changed mark")
}

// Config.Verify receives what the host observed under the hold: each call of the step's
// tools, oldest first, with its outcome (Config.ProofResult's), time and digest.
func TestVerifyReceivesWhatWasObserved(t *testing.T) {
	store := fixStore(t, plan.NewMemoryBackend())
	var seen []plan.Completion
	verify := func(_ context.Context, c plan.Completion) error {
		seen = append(seen, c)
		return nil
	}
	m := plantest.NewScriptedModel(takeFix, edit, failTests, call("ls", `{"arg":"."}`), runTests, completeFix, plantest.Answer("done"))
	ls := &callProbe{name: "ls", run: func(string) string { return "parser.go" }}
	r := proofRun(t, "coder", &plan.Config{Store: store, Verify: verify, ProofResult: testsPassed}, m, nil, testRunner(), editor(), ls)
	require.Len(t, r, 6)
	assert.Equal(t, "", errorCode(t, r[5]), r[5])
	require.Len(t, seen, 1)
	obs := seen[0].Observed
	require.Len(t, obs, 3, "the step's tools only: %+v", obs)
	assert.Equal(t, []string{"edit_file", "run_tests", "run_tests"}, []string{obs[0].Tool, obs[1].Tool, obs[2].Tool})
	assert.Equal(t, []bool{true, false, true}, []bool{obs[0].OK, obs[1].OK, obs[2].OK})
	for _, o := range obs {
		assert.False(t, o.At.IsZero())
		assert.Regexp(t, `^[0-9a-f]{12}$`, o.Digest)
	}
	assert.NotEqual(t, obs[1].Digest, obs[2].Digest)
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// fixStore is a Store on backend that holds fixPlan as "fix".
func fixStore(t *testing.T, backend plan.Backend) *plan.Store {
	t.Helper()
	store := storeOn(t, backend, "")
	_, err := store.Put(context.Background(), plan.Update{Name: "fix", Content: ptr(fixPlan)})
	require.NoError(t, err)
	return store
}

// answersRunTests is another middleware that answers run_tests itself: the tool never runs.
type answersRunTests struct {
	*adk.BaseChatModelAgentMiddleware
}

func (answersRunTests) WrapInvokableToolCall(_ context.Context, endpoint adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	if tc == nil || tc.Name != "run_tests" {
		return endpoint, nil
	}
	return func(context.Context, string, ...tool.Option) (string, error) { return "ok: 12 passed", nil }, nil
}

// Can the agent make the host believe a run passed? One way in each: a tool of another name,
// a tool answered by another middleware, a sub-agent's call, a failed call, a call under
// another agent's hold. None completes the step; the agent's own fresh passing run does.
func TestNoWayInMakesTheHostBelieveARunPassed(t *testing.T) {
	ctx := context.Background()
	t.Run("a renamed tool", func(t *testing.T) {
		store := fixStore(t, plan.NewMemoryBackend())
		fast := &callProbe{name: "run_tests_fast", run: func(string) string { return "ok: 12 passed" }}
		dashed := &callProbe{name: "run-tests", run: func(string) string { return "ok: 12 passed" }}
		m := plantest.NewScriptedModel(takeFix, call("run_tests_fast", `{}`), call("run-tests", `{}`), completeFix, plantest.Answer("done"))
		r := proofRun(t, "coder", &plan.Config{Store: store}, m, nil, testRunner(), fast, dashed)
		require.Len(t, r, 4)
		assert.Equal(t, string(plan.CodeUnproven), errorCode(t, r[3]), r[3])
	})
	t.Run("a tool another middleware answers", func(t *testing.T) {
		store := fixStore(t, plan.NewMemoryBackend())
		runner := testRunner()
		m := plantest.NewScriptedModel(takeFix, runTests, completeFix, plantest.Answer("done"))
		r := proofRun(t, "coder", &plan.Config{Store: store}, m, []adk.ChatModelAgentMiddleware{answersRunTests{}}, runner)
		require.Len(t, r, 3)
		assert.Equal(t, "ok: 12 passed", r[1], "the other middleware answered")
		assert.Zero(t, runner.calls, "and the tool never ran")
		assert.Equal(t, string(plan.CodeUnproven), errorCode(t, r[2]), r[2])
	})
	t.Run("a sub-agent's call", func(t *testing.T) {
		store := fixStore(t, plan.NewMemoryBackend())
		mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "lead"})
		require.NoError(t, err)
		tools := compose.ToolsNodeConfig{Tools: []tool.BaseTool{testRunner()}}
		helper, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "helper", Description: "runs tests", Instruction: "You run tests.",
			Model: plantest.NewScriptedModel(runTests, plantest.Answer("tests pass")), Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 5,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: tools}})
		require.NoError(t, err)
		m := plantest.NewScriptedModel(takeFix, call("helper", `{"request":"run the tests"}`), completeFix, runTests, completeFix, plantest.Answer("done"))
		lead, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "lead", Description: "leads", Instruction: "You lead.", Model: m,
			Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 10,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{adk.NewAgentTool(ctx, helper), testRunner()}}}})
		require.NoError(t, err)
		r := toolResults(drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: lead}).Query(ctx, "fix it")))
		require.Len(t, r, 5)
		assert.Contains(t, r[1], "tests pass", "the sub-agent ran the tests")
		assert.Equal(t, string(plan.CodeUnproven), errorCode(t, r[2]), "its run is not the holder's: %s", r[2])
		assert.Equal(t, "", errorCode(t, r[4]), "the holder's own run proves it: %s", r[4])
	})
	t.Run("a failed call", func(t *testing.T) {
		store := fixStore(t, plan.NewMemoryBackend())
		m := plantest.NewScriptedModel(takeFix, failTests, completeFix, plantest.Answer("done"))
		r := proofRun(t, "coder", &plan.Config{Store: store, ProofResult: testsPassed}, m, nil, testRunner())
		require.Len(t, r, 3)
		assert.Equal(t, string(plan.CodeUnproven), errorCode(t, r[2]), r[2])

		panics := func(string, string) bool { panic("judge broke") }
		m = plantest.NewScriptedModel(runTests, completeFix, plantest.Answer("done"))
		r = proofRun(t, "coder", &plan.Config{Store: store, ProofResult: panics}, m, nil, testRunner())
		require.Len(t, r, 2)
		assert.Equal(t, string(plan.CodeUnproven), errorCode(t, r[1]), "a judge that panics passes nothing: %s", r[1])
	})
	t.Run("a call under another agent's hold", func(t *testing.T) {
		store := fixStore(t, plan.NewMemoryBackend())
		// tester runs the tests while coder holds the step: nobody's proof.
		proofRun(t, "coder", &plan.Config{Store: store}, plantest.NewScriptedModel(takeFix, plantest.Answer("taken")), nil)
		proofRun(t, "tester", &plan.Config{Store: store}, plantest.NewScriptedModel(runTests, plantest.Answer("ran")), nil, testRunner())
		r := proofRun(t, "coder", &plan.Config{Store: store}, plantest.NewScriptedModel(completeFix, plantest.Answer("done")), nil)
		require.Len(t, r, 1)
		assert.Equal(t, string(plan.CodeUnproven), errorCode(t, r[0]), r[0])

		// coder's passing run does not prove the step for tester, who is handed it, nor for
		// coder once handed it back: a new hold starts with nothing observed.
		proofRun(t, "coder", &plan.Config{Store: store}, plantest.NewScriptedModel(runTests, plantest.Answer("ran")), nil, testRunner())
		_, _, err := store.MoveStep(ctx, plan.StepMove{Name: "fix", Step: 1, State: plan.StepInProgress, By: "tester", Takeover: true})
		require.NoError(t, err)
		r = proofRun(t, "tester", &plan.Config{Store: store}, plantest.NewScriptedModel(completeFix, plantest.Answer("done")), nil)
		assert.Equal(t, string(plan.CodeUnproven), errorCode(t, r[0]), r[0])
		_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "fix", Step: 1, State: plan.StepInProgress, By: "coder", Takeover: true})
		require.NoError(t, err)
		r = proofRun(t, "coder", &plan.Config{Store: store}, plantest.NewScriptedModel(completeFix, plantest.Answer("done")), nil)
		assert.Equal(t, string(plan.CodeUnproven), errorCode(t, r[0]), r[0])

		r = proofRun(t, "coder", &plan.Config{Store: store}, plantest.NewScriptedModel(runTests, completeFix, plantest.Answer("done")), nil, testRunner())
		require.Len(t, r, 2)
		assert.Equal(t, "", errorCode(t, r[1]), r[1])
		assert.Regexp(t, `^run_tests passed`, fixStep(t, store).Observed)
	})
}

// A verifier that panics, or that does not answer within Config.VerifyTimeout, refuses the
// completion with not_verified, saying so in the model's language; the run goes on and the
// step stays in progress with its holder.
func TestAVerifierThatPanicsOrHangsRefusesTheCompletion(t *testing.T) {
	said := map[string][2]string{"en": {"the verifier failed", "did not answer in time"}, "zh": {"验证程序出错", "未在时限内答复"}}
	for _, lg := range proofLanguages {
		for i, c := range []struct {
			name    string
			verify  func(ctx context.Context, _ plan.Completion) error
			timeout time.Duration
		}{
			{"panics", func(context.Context, plan.Completion) error { panic("verifier bug") }, 0},
			{"hangs", func(ctx context.Context, _ plan.Completion) error { <-ctx.Done(); return ctx.Err() }, 50 * time.Millisecond},
		} {
			t.Run(lg.name+"/"+c.name, func(t *testing.T) {
				ctx := context.Background()
				store := proofStore(t, ctx, plan.NewMemoryBackend())
				m := plantest.NewScriptedModel(
					plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`),
					plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"built"}`),
					plantest.CallTool(plan.ToolReadPlan, `{"name":"release"}`),
					plantest.Answer("done"))
				mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang, Verify: c.verify, VerifyTimeout: c.timeout})
				require.NoError(t, err)
				results := toolResults(runAgent(t, m, mw))
				require.Len(t, results, 3, "the run goes on")
				code, msg := errorMessage(t, results[1])
				assert.Equal(t, plan.CodeNotVerified, code)
				assert.Contains(t, msg, said[lg.name][i])
				assert.Equal(t, "", errorCode(t, results[2]))
				p, err := store.Get(ctx, "release")
				require.NoError(t, err)
				st := plan.ParseSteps(p.Content)[0]
				assert.Equal(t, plan.StepInProgress, st.State)
				assert.Equal(t, "worker-1", st.Holder)
			})
		}
	}
}

// Two runs of one sub-agent at once act as "worker" and "worker·2": neither completes the
// review of the other's work, since both are the doer (review_own); an agent of another
// name does.
func TestAReviewIsNeverCompletedByAnotherRunOfItsDoer(t *testing.T) {
	ctx := context.Background()
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), "# Release\n- [ ] Write the code (review)\n- [ ] Something else\n")
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "lead"})
	require.NoError(t, err)

	var starts atomic.Int32
	doerDone, reviewerDone := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var reviewed string
	wait := func(ch chan struct{}) {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
		}
	}
	take := plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)
	complete := plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"written"}`)
	review := plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed"}`)
	turn := func(in []*schema.Message) *schema.Message {
		last := in[len(in)-1]
		if last.Role != schema.Tool {
			if starts.Add(1) == 1 {
				return take(in) // the doer
			}
			wait(doerDone) // the other run reviews once the doer is done, while it still runs
			return review(in)
		}
		asked := in[len(in)-2].ToolCalls[0].Function.Arguments
		switch {
		case strings.Contains(asked, "in_progress"):
			return complete(in)
		case strings.Contains(asked, "evidence"):
			close(doerDone)
			wait(reviewerDone)
			return schema.AssistantMessage("wrote it", nil)
		}
		mu.Lock()
		reviewed = last.Content
		mu.Unlock()
		close(reviewerDone)
		return schema.AssistantMessage("reviewed it", nil)
	}
	sub, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "does plan steps",
		Instruction: "You do plan steps.", Model: plantest.NewScriptedModel(turn, turn, turn, turn, turn, turn),
		Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 10})
	require.NoError(t, err)
	task := plantest.ToolCall{Name: "task", Arguments: `{"subagent_type":"worker","description":"work on plan release"}`}
	lead, err := deep.New(ctx, &deep.Config{Name: "lead", Description: "orchestrator",
		ChatModel: plantest.NewScriptedModel(plantest.CallTools(task, task), plantest.Answer("both done")),
		SubAgents: []adk.Agent{sub}, Handlers: []adk.ChatModelAgentMiddleware{mw},
		WithoutWriteTodos: true, WithoutGeneralSubAgent: true, MaxIteration: 10})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: lead}).Query(ctx, "release"))

	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, string(plan.CodeIllegalTransition), errorCode(t, reviewed), "another run of the doer: %s", reviewed)
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	st := plan.ParseSteps(p.Content)[0]
	require.True(t, st.AwaitingReview, st.Text)
	assert.Contains(t, []string{"worker", "worker·2"}, st.DoneBy)

	// An agent of another name completes the review.
	m := plantest.NewScriptedModel(review, plantest.Answer("reviewed"))
	tester, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "tester"})
	require.NoError(t, err)
	results := toolResults(runAgent(t, m, tester))
	require.Len(t, results, 1)
	assert.Equal(t, "", errorCode(t, results[0]), results[0])
}

// A failed step blocks the steps that wait for it, so an agent marks it failed only while
// it holds it; a person (the Store's API) may, and a step nobody waits for any agent may.
func TestOnlyAHolderOrAPersonFailsAStepOthersWaitFor(t *testing.T) {
	const body = "# Build\n- [ ] Compile\n- [ ] Ship (after 1)\n- [ ] Tidy up\n"
	fail := func(step string) plantest.Turn {
		return plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":`+step+`,"status":"failed"}`)
	}
	for _, lg := range proofLanguages {
		t.Run(lg.name, func(t *testing.T) {
			ctx := context.Background()
			store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
			intruder, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "intruder", Language: lg.lang})
			require.NoError(t, err)
			results := toolResults(runAgent(t, plantest.NewScriptedModel(fail("1"), fail("3"), plantest.Answer("done")), intruder))
			require.Len(t, results, 2)
			code, msg := errorMessage(t, results[0])
			assert.Equal(t, plan.CodeIllegalTransition, code)
			assert.Contains(t, msg, "2", "it names the step that waits")
			assert.Equal(t, lg.name == "zh", hasHan(msg), msg)
			assert.Equal(t, "", errorCode(t, results[1]), "nobody waits for step 3: %s", results[1])
			p, err := store.Get(ctx, "release")
			require.NoError(t, err)
			assert.Equal(t, plan.StepPending, plan.ParseSteps(p.Content)[0].State)

			holder, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "builder", Language: lg.lang})
			require.NoError(t, err)
			take := plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)
			results = toolResults(runAgent(t, plantest.NewScriptedModel(take, fail("1"), plantest.Answer("done")), holder))
			require.Len(t, results, 2)
			assert.Equal(t, "", errorCode(t, results[1]), results[1])
		})
	}
	ctx := context.Background()
	store := releaseStore(t, ctx, plan.NewMemoryBackend(), body)
	_, st, err := store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepFailed})
	require.NoError(t, err, "a person")
	assert.Equal(t, plan.StepFailed, st.State)
}

// Completing a proven step that is completed already is refused as the illegal transition it
// is, not as unproven, whose advice (run the proof tool again) would change nothing.
func TestCompletingAProvenStepAgainIsAnIllegalTransition(t *testing.T) {
	for _, lg := range proofLanguages {
		t.Run(lg.name, func(t *testing.T) {
			store := fixStore(t, plan.NewMemoryBackend())
			m := plantest.NewScriptedModel(takeFix, edit, runTests, completeFix, completeFix, plantest.Answer("done"))
			r := proofRun(t, "coder", &plan.Config{Store: store, Language: lg.lang}, m, nil, testRunner(), editor())
			require.Len(t, r, 5)
			assert.Equal(t, "", errorCode(t, r[3]), r[3])
			code, msg := errorMessage(t, r[4])
			assert.Equal(t, plan.CodeIllegalTransition, code, r[4])
			assert.Equal(t, lg.name == "zh", hasHan(msg), msg)
		})
	}
}
