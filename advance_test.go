package plan_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// advancePlan has two steps a passing run_tests proves and one nobody proves.
const advancePlan = "# Fix\n- [ ] Fix the parser (uses edit_file) (proof run_tests)\n- [ ] Fix the lexer (uses edit_file) (proof run_tests)\n- [ ] Tell the team\n"

// advanceStore returns a Store on backend holding advancePlan as "fix".
func advanceStore(t *testing.T, backend plan.Backend) *plan.Store {
	t.Helper()
	store := storeOn(t, backend, "")
	_, err := store.Put(context.Background(), plan.Update{Name: "fix", Content: ptr(advancePlan)})
	require.NoError(t, err)
	return store
}

// lastNote is the text of the message the model received after the history on call i: a
// user message after the last tool result, "" when there is none.
func lastNote(m *plantest.ScriptedModel, i int) string {
	calls := m.Calls()
	if i >= len(calls) || len(calls[i].Input) == 0 {
		return ""
	}
	last := calls[i].Input[len(calls[i].Input)-1]
	if last.Role != schema.User || len(calls[i].Input) < 3 {
		return ""
	}
	return last.Content
}

// With Config.AdvanceOnProof, the passing run of a held step's proof tool completes the step
// (with what the host observed) and takes the next ready step for the agent, in one new
// revision, with no plan call; the model reads it once, after the history, in its language:
// the step done and the step held now with its text. A failing run moves nothing; a step
// nobody proves is finished by a call, as always.
func TestAPassingProofCompletesTheStepAndTakesTheNext(t *testing.T) {
	for _, lg := range proofLanguages {
		for bname, backend := range proofBackends(t) {
			t.Run(lg.name+"/"+bname, func(t *testing.T) {
				ctx := context.Background()
				store := advanceStore(t, backend)
				take := call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`)
				m := plantest.NewScriptedModel(take, edit, failTests, edit, runTests, runTests,
					call(plan.ToolUpdatePlanStep, `{"next":true}`), plantest.Answer("done"))
				r := proofRun(t, "coder", &plan.Config{Store: store, Language: lg.lang, ProofResult: testsPassed, AdvanceOnProof: true}, m, nil, testRunner(), editor())
				require.Len(t, r, 7)

				calls := m.Calls()
				assert.Contains(t, calls[0].Input[0].Content, map[string]string{"en": "completes itself", "zh": "自动完成"}[lg.name], "the instruction teaches it")
				hint, _ := resultField(t, r[0], "proof").(string)
				assert.Contains(t, hint, "run_tests")
				assert.Empty(t, lastNote(m, 3), "a failing run moves nothing")
				assert.Empty(t, lastNote(m, 4))
				note := lastNote(m, 5)
				assert.Contains(t, note, "Fix the lexer", "the step held now, with its text")
				assert.Contains(t, note, "1/3")
				assert.Equal(t, lg.name == "zh", hasHan(note), note)
				assert.Contains(t, lastNote(m, 6), "Tell the team", "the lexer's own run proves it, with no edit in between")
				assert.Empty(t, lastNote(m, 7), "each told once")
				assert.Equal(t, "", errorCode(t, r[6]), r[6])

				p, err := store.Get(ctx, "fix")
				require.NoError(t, err)
				steps := plan.ParseSteps(p.Content)
				for _, s := range steps {
					assert.Equal(t, plan.StepCompleted, s.State, s.Text)
				}
				assert.Regexp(t, `^run_tests passed \d\d:\d\d:\d\dZ$`, steps[0].Observed)
				assert.Regexp(t, `^run_tests passed \d\d:\d\d:\d\dZ$`, steps[1].Observed)
				assert.Equal(t, int64(5), p.Revision, "put, take, two advances, the last completion: one revision each")
				revs, err := store.History(ctx, "fix")
				require.NoError(t, err)
				assert.Len(t, revs, 5)
			})
		}
	}
}

// The evidence a host requires is the passing run itself: a lean worker whose host asks for
// evidence advances on its proof, and the step keeps "run_tests passed" as its evidence.
func TestAnAdvanceOnProofGivesTheRunAsEvidence(t *testing.T) {
	store := advanceStore(t, plan.NewMemoryBackend())
	m := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`), edit, runTests, plantest.Answer("done"))
	proofRun(t, "coder", &plan.Config{Store: store, ProofResult: testsPassed, AdvanceOnProof: true, RequireEvidence: true, LeanWorker: true}, m, nil, testRunner(), editor())
	steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
	assert.Equal(t, plan.StepCompleted, steps[0].State)
	assert.Equal(t, "run_tests passed", steps[0].Evidence)
	assert.Equal(t, plan.StepInProgress, steps[1].State)
	assert.Equal(t, "coder", steps[1].Holder)
	assert.Contains(t, lastNote(m, 3), "Fix the lexer")
}

// A completion the plan refuses is not made on a passing run: the step stays the agent's,
// and the model is told why, in its language, after the history.
func TestARefusedAdvanceLeavesTheStepHeldAndSaysWhy(t *testing.T) {
	for _, lg := range proofLanguages {
		t.Run(lg.name, func(t *testing.T) {
			store := advanceStore(t, plan.NewMemoryBackend())
			verify := func(context.Context, plan.Completion) error { return errors.New("the changelog is missing") }
			m := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`), runTests, plantest.Answer("done"))
			proofRun(t, "coder", &plan.Config{Store: store, Language: lg.lang, AdvanceOnProof: true, Verify: verify}, m, nil, testRunner(), editor())
			steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
			assert.Equal(t, plan.StepInProgress, steps[0].State)
			assert.Equal(t, "coder", steps[0].Holder)
			assert.Equal(t, plan.StepPending, steps[1].State)
			note := lastNote(m, 2)
			assert.Contains(t, note, "the changelog is missing")
			assert.Equal(t, lg.name == "zh", hasHan(note), note)
		})
	}
}

// A message that lists a plan call with the proof run moves its steps itself: the run and
// the completion after it finish step 1 once, and step 2 is not taken behind the model's
// back. Without AdvanceOnProof a passing run moves nothing.
func TestAProofRunBesideAPlanCallOrWithoutTheOptionAdvancesNothing(t *testing.T) {
	complete := plantest.ToolCall{Name: plan.ToolUpdatePlanStep, Arguments: `{"name":"fix","step":1,"status":"completed"}`}
	run := plantest.ToolCall{Name: "run_tests", Arguments: `{"arg":"./..."}`}
	for _, tc := range []struct {
		name    string
		advance bool
		turns   []plantest.Turn
	}{
		{"a plan call in the message", true, []plantest.Turn{plantest.CallTools(run, complete)}},
		{"the option off", false, []plantest.Turn{runTests}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := advanceStore(t, plan.NewMemoryBackend())
			turns := append([]plantest.Turn{call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`)}, tc.turns...)
			m := plantest.NewScriptedModel(append(turns, plantest.Answer("done"))...)
			proofRun(t, "coder", &plan.Config{Store: store, AdvanceOnProof: tc.advance}, m, nil, testRunner(), editor())
			steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
			assert.Equal(t, plan.StepPending, steps[1].State, "step 2 is nobody's")
			assert.Empty(t, lastNote(m, 2))
		})
	}
}

// A message listing [run_tests, deploy_prod] runs deploy_prod under the step the passing run
// just took, 50 times in a row with Eino's parallel tool execution, however long run_tests
// takes to reach the middleware, in plan mode, with the lean worker, evidence required and a
// budget on the step taken.
func TestAWorkCallAfterAProofRunRunsUnderTheStepItTook(t *testing.T) {
	ctx := context.Background()
	body := "# Release\n- [ ] Test the release (proof run_tests)\n- [ ] Deploy to production (uses deploy_prod)\n"
	message := plantest.CallTools(plantest.ToolCall{Name: "run_tests", Arguments: `{"arg":"./..."}`}, deployCall)
	for i := range 50 {
		body := body
		if i%4 == 3 {
			body = strings.ReplaceAll(body, "(uses deploy_prod)\n", "(uses deploy_prod) (budget 900k tokens)\n")
		}
		backend := approvedPlans(t, map[string]string{"release": body})
		var log gateLog
		mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "worker", GatedTools: []string{"deploy_prod"}, OnGatedCall: log.hear,
			AdvanceOnProof: true, LeanWorker: i%2 == 1, RequireEvidence: i%3 == 2})
		require.NoError(t, err)
		deploys := newSideEffect("deploy_prod", "target")
		outer := &holdUp{tools: map[string]bool{"run_tests": true}, delay: time.Duration(i%3+1) * time.Millisecond}
		model := plantest.NewScriptedModel(takeStep("release", 1), message, plantest.Answer("done"))
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "works",
			Instruction: "You work.", Model: model, Handlers: []adk.ChatModelAgentMiddleware{outer, mw}, MaxIterations: 10,
			ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{deploys, testRunner()}}}})
		require.NoError(t, err)
		gateEvents(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "ship it"))
		heard := log.calls()
		require.Len(t, heard, 1, "run %d: %+v", i, heard)
		require.True(t, heard[0].Allowed, "run %d: deploy_prod ran under the step just taken: %+v", i, heard[0])
		require.Equal(t, 2, heard[0].Step, "run %d", i)
		require.Equal(t, int32(1), deploys.ran.Load(), "run %d", i)
		require.True(t, strings.HasPrefix(lastNote(model, 2), "Plan release: step 1 completed"), "run %d: %q", i, lastNote(model, 2))
	}
}

// mustGet is the plan name on store.
func mustGet(t *testing.T, store *plan.Store, name string) *plan.Plan {
	t.Helper()
	p, err := store.Get(context.Background(), name)
	require.NoError(t, err)
	return p
}

// A proven step that needs a review goes to its review on the passing run, as a completion
// does, and the agent holds the next step; a step over its budget advances with its cost
// written, as any move writes it.
func TestAnAdvanceOnProofKeepsReviewsAndCosts(t *testing.T) {
	store := storeOn(t, plan.NewMemoryBackend(), "")
	body := "# Fix\n- [ ] Fix the parser (proof run_tests) (review)\n- [ ] Fix the lexer (proof run_tests) (budget 1 tokens)\n- [ ] Tell the team\n"
	_, err := store.Put(context.Background(), plan.Update{Name: "fix", Content: &body})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`), runTests, runTests, plantest.Answer("done")).Billing(4)
	proofRun(t, "coder", &plan.Config{Store: store, AdvanceOnProof: true}, m, nil, testRunner(), editor())
	steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
	assert.True(t, steps[0].AwaitingReview, "step 1 awaits someone else's review: %+v", steps[0])
	assert.Equal(t, `Plan fix: step 1 awaits someone else's review; yours now: step 2 "Fix the lexer (proof run_tests) (budget 1 tokens)"; done 0/3. Step 2 has 1 of 1 tokens left.`, lastNote(m, 2))
	assert.Equal(t, plan.StepCompleted, steps[1].State)
	require.NotNil(t, steps[1].Cost, "the cost is written with the move")
	assert.Positive(t, steps[1].Cost.ToolCalls)
	assert.Positive(t, steps[1].Cost.PromptTokens)
	assert.True(t, steps[1].OverBudget, "its cost went over its budget")
	assert.Equal(t, plan.StepInProgress, steps[2].State)
	assert.Equal(t, "coder", steps[2].Holder)
}

// A sub-agent's passing run advances the step its own run holds, under its own name, with
// the orchestrator's plan middleware in front of it: the orchestrator holds nothing and is
// told nothing.
func TestASubAgentsProofRunAdvancesItsOwnStep(t *testing.T) {
	ctx := context.Background()
	store := advanceStore(t, plan.NewMemoryBackend())
	newMW := func(name string) adk.ChatModelAgentMiddleware {
		mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: name, AdvanceOnProof: true, ProofResult: testsPassed})
		require.NoError(t, err)
		return mw
	}
	coderModel := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`), runTests, plantest.Answer("fixed"))
	coder, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "coder", Description: "fixes code", Instruction: "You fix.", Model: coderModel,
		Handlers: []adk.ChatModelAgentMiddleware{newMW("coder")}, ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{testRunner()}}}})
	require.NoError(t, err)
	mainModel := plantest.NewScriptedModel(call("coder", `{"request":"fix the parser"}`), plantest.Answer("done"))
	main, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "main", Description: "plans", Instruction: "You plan.", Model: mainModel,
		Handlers: []adk.ChatModelAgentMiddleware{newMW("main")}, ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{adk.NewAgentTool(ctx, coder)}}}})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: main}).Query(ctx, "fix it"))

	steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
	assert.Equal(t, plan.StepCompleted, steps[0].State)
	assert.Equal(t, plan.StepInProgress, steps[1].State)
	assert.Equal(t, "coder", steps[1].Holder)
	assert.Contains(t, lastNote(coderModel, 2), "Fix the lexer")
	assert.Empty(t, lastNote(mainModel, 1))
}

// The model listed a message's calls knowing the steps it held then: a proof tool called
// twice in one message advances one step, not the step the first call took.
func TestOneMessageAdvancesOneStepAtMost(t *testing.T) {
	store := advanceStore(t, plan.NewMemoryBackend())
	run := plantest.ToolCall{Name: "run_tests", Arguments: `{"arg":"./..."}`}
	m := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`), edit, plantest.CallTools(run, run), plantest.Answer("done"))
	proofRun(t, "coder", &plan.Config{Store: store, AdvanceOnProof: true, ProofResult: testsPassed}, m, nil, testRunner(), editor())
	steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
	assert.Equal(t, plan.StepCompleted, steps[0].State)
	assert.Equal(t, plan.StepInProgress, steps[1].State, "step 2 is held, not completed")
	assert.Equal(t, "coder", steps[1].Holder)
	assert.Equal(t, 1, strings.Count(lastNote(m, 3), "completed"), lastNote(m, 3))
}

// A step taken over while its proof run ran is not advanced, and the model is not told it
// is still its own.
func TestAStepTakenOverDuringItsProofRunDoesNotAdvance(t *testing.T) {
	ctx := context.Background()
	store := advanceStore(t, plan.NewMemoryBackend())
	runner := &callProbe{name: "run_tests", run: func(string) string {
		_, _, err := store.MoveStep(ctx, plan.StepMove{Name: "fix", Step: 1, State: plan.StepInProgress, By: "other", Takeover: true})
		require.NoError(t, err)
		return "ok: 12 passed"
	}}
	m := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`), runTests, plantest.Answer("done"))
	proofRun(t, "coder", &plan.Config{Store: store, AdvanceOnProof: true}, m, nil, runner)
	steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
	assert.Equal(t, plan.StepInProgress, steps[0].State)
	assert.Equal(t, "other", steps[0].Holder)
	assert.Equal(t, plan.StepPending, steps[1].State)
	assert.Empty(t, lastNote(m, 2))
}

// A proof tool that pauses the run for a person and runs again on resume advances nothing:
// the resumed run never read the message its call came in, which may list a plan call.
func TestAProofRunRerunOnResumeDoesNotAdvance(t *testing.T) {
	ctx := context.Background()
	store := advanceStore(t, plan.NewMemoryBackend())
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "coder", AdvanceOnProof: true})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`),
		plantest.CallTools(plantest.ToolCall{Name: "run_tests", Arguments: `{"arg":"./..."}`}, plantest.ToolCall{Name: plan.ToolReadPlan, Arguments: `{"name":"fix"}`}),
		plantest.Answer("done"))
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "coder", Description: "fixes", Instruction: "You fix.", Model: m,
		Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 10,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{pausingRunner{}}}}})
	require.NoError(t, err)
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &plantest.CheckPoints{}})
	id := ""
	for _, ev := range drain(t, runner.Query(ctx, "fix it", adk.WithCheckPointID("cp"))) {
		if ev.Action != nil && ev.Action.Interrupted != nil {
			for _, ic := range ev.Action.Interrupted.InterruptContexts {
				if ic.IsRootCause {
					id = ic.ID
				}
			}
		}
	}
	require.NotEmpty(t, id, "run_tests paused the run")
	iter, err := runner.ResumeWithParams(ctx, "cp", &adk.ResumeParams{Targets: map[string]any{id: "yes"}})
	require.NoError(t, err)
	drain(t, iter)
	steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
	assert.Equal(t, plan.StepInProgress, steps[0].State)
	assert.Equal(t, plan.StepPending, steps[1].State)
}

// pausingRunner is run_tests asking a person first: it interrupts the run, and passes when
// resumed.
type pausingRunner struct{}

func (pausingRunner) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "run_tests", Desc: "runs the tests",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"arg": {Type: schema.String}})}, nil
}

func (pausingRunner) InvokableRun(ctx context.Context, _ string, _ ...tool.Option) (string, error) {
	if resumed, _, _ := tool.GetInterruptState[any](ctx); !resumed {
		return "", tool.Interrupt(ctx, "may I run the tests?")
	}
	return "ok: 12 passed", nil
}

// A run of *schema.AgenticMessage, whose calls the middleware does not order, advances no
// step on its proof and is not taught that steps complete themselves.
func TestAnAgenticRunDoesNotAdvanceOnProof(t *testing.T) {
	ctx := context.Background()
	store := advanceStore(t, plan.NewMemoryBackend())
	mw, err := plan.NewTyped[*schema.AgenticMessage](ctx, &plan.Config{Store: store, AgentName: "coder", AdvanceOnProof: true})
	require.NoError(t, err)
	m := &agenticCalls{calls: [][2]string{{plan.ToolUpdatePlanStep, `{"name":"fix","step":1,"status":"in_progress"}`}, {"run_tests", `{"arg":"./..."}`}}}
	agent, err := adk.NewTypedChatModelAgent(ctx, &adk.TypedChatModelAgentConfig[*schema.AgenticMessage]{Name: "coder", Description: "fixes", Instruction: "You fix.", Model: m,
		Handlers:    []adk.TypedChatModelAgentMiddleware[*schema.AgenticMessage]{mw},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{testRunner()}}}})
	require.NoError(t, err)
	iter := adk.NewTypedRunner(adk.TypedRunnerConfig[*schema.AgenticMessage]{Agent: agent}).Run(ctx, []*schema.AgenticMessage{schema.UserAgenticMessage("fix it")})
	for {
		if _, ok := iter.Next(); !ok {
			break
		}
	}
	require.Equal(t, 3, m.n, "the take, the run and the answer")
	steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
	assert.Equal(t, plan.StepInProgress, steps[0].State)
	assert.Equal(t, plan.StepPending, steps[1].State)
}

// agenticCalls is a model of *schema.AgenticMessage that makes its calls, one a turn, then
// answers.
type agenticCalls struct {
	calls [][2]string
	n     int
}

func (m *agenticCalls) Generate(context.Context, []*schema.AgenticMessage, ...model.Option) (*schema.AgenticMessage, error) {
	m.n++
	if m.n > len(m.calls) {
		return &schema.AgenticMessage{Role: schema.AgenticRoleTypeAssistant, ContentBlocks: []*schema.ContentBlock{schema.NewContentBlock(&schema.AssistantGenText{Text: "done"})}}, nil
	}
	c := m.calls[m.n-1]
	return &schema.AgenticMessage{Role: schema.AgenticRoleTypeAssistant, ContentBlocks: []*schema.ContentBlock{
		schema.NewContentBlock(&schema.FunctionToolCall{CallID: "call_" + strconv.Itoa(m.n), Name: c[0], Arguments: c[1]})}}, nil
}

func (m *agenticCalls) Stream(ctx context.Context, in []*schema.AgenticMessage, opts ...model.Option) (*schema.StreamReader[*schema.AgenticMessage], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.AgenticMessage{msg}), nil
}

// A model call that fails and is retried carries the line of a step the host advanced on
// each attempt, until a call answers.
func TestAFailedModelCallIsRetriedWithTheAdvanceLine(t *testing.T) {
	ctx := context.Background()
	store := advanceStore(t, plan.NewMemoryBackend())
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "coder", AdvanceOnProof: true})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`), runTests, plantest.Answer("done"))
	flaky := &failsOnce{ScriptedModel: m, at: 3}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "coder", Description: "fixes", Instruction: "You fix.", Model: flaky,
		Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 10,
		ModelRetryConfig: &adk.ModelRetryConfig{MaxRetries: 2, BackoffFunc: func(context.Context, int) time.Duration { return time.Millisecond }},
		ToolsConfig:      adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{testRunner()}}}})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "fix it"))
	require.Equal(t, 1, flaky.failed, "the third call failed once")
	assert.Contains(t, lastNote(m, 2), "yours now: step 2", "the retry carries the line")
}

// failsOnce is a ScriptedModel whose call number at (from 1) fails once before it answers.
type failsOnce struct {
	*plantest.ScriptedModel
	at, calls, failed int
}

func (f *failsOnce) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	f.calls++
	if f.calls == f.at {
		f.failed++
		return nil, errors.New("the provider is busy")
	}
	return f.ScriptedModel.Generate(ctx, in, opts...)
}

func (f *failsOnce) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return f, nil }

// One message proving held steps of two plans advances both, and the model reads a line for
// each.
func TestOneMessageAdvancesTheStepsOfEachPlanItProves(t *testing.T) {
	ctx := context.Background()
	store := advanceStore(t, plan.NewMemoryBackend())
	_, err := store.Put(ctx, plan.Update{Name: "lint", Content: ptr("# Lint\n- [ ] Clean the warnings (proof run_lint)\n- [ ] Turn the linter on in CI\n")})
	require.NoError(t, err)
	lint := &callProbe{name: "run_lint", run: func(string) string { return "ok: no warnings" }}
	m := plantest.NewScriptedModel(
		call(plan.ToolUpdatePlanStep, `{"name":"fix","status":"in_progress"}`),
		call(plan.ToolUpdatePlanStep, `{"name":"lint","status":"in_progress"}`),
		plantest.CallTools(plantest.ToolCall{Name: "run_tests", Arguments: `{"arg":"./..."}`}, plantest.ToolCall{Name: "run_lint", Arguments: `{"arg":"./..."}`}),
		plantest.Answer("done"))
	proofRun(t, "coder", &plan.Config{Store: store, AdvanceOnProof: true}, m, nil, testRunner(), lint)
	for name, text := range map[string]string{"fix": "Fix the lexer", "lint": "Turn the linter on"} {
		steps := plan.ParseSteps(mustGet(t, store, name).Content)
		assert.Equal(t, plan.StepCompleted, steps[0].State, name)
		assert.Equal(t, "coder", steps[1].Holder, name)
		assert.Contains(t, lastNote(m, 3), text)
	}
}

// A plan call of another plan middleware of the agent (its tools renamed by ToolPrefix), in
// the message of the proof run, moves the step itself: the middleware that advances proven
// steps leaves it alone, and the completion lands.
func TestAPlanCallOfAnotherPlanMiddlewareStopsTheAdvance(t *testing.T) {
	ctx := context.Background()
	store := advanceStore(t, plan.NewMemoryBackend())
	mine, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "coder", ToolPrefix: "my_", AdvanceOnProof: true})
	require.NoError(t, err)
	complete := plantest.ToolCall{Name: plan.ToolUpdatePlanStep, Arguments: `{"name":"fix","step":1,"status":"completed","next":true}`}
	m := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"name":"fix","status":"in_progress"}`),
		plantest.CallTools(plantest.ToolCall{Name: "run_tests", Arguments: `{"arg":"./..."}`}, complete), plantest.Answer("done"))
	r := proofRun(t, "coder", &plan.Config{Store: store}, m, []adk.ChatModelAgentMiddleware{mine}, testRunner())
	require.Len(t, r, 3)
	done := slices.IndexFunc(r[1:], func(res string) bool { return strings.HasPrefix(res, "{") }) // the message's results come as they end
	require.GreaterOrEqual(t, done, 0, "%v", r)
	assert.Equal(t, "", errorCode(t, r[1+done]), r[1+done])
	steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
	assert.Equal(t, plan.StepCompleted, steps[0].State)
	assert.Equal(t, "coder", steps[1].Holder)
	assert.Equal(t, plan.StepPending, steps[2].State, "one step moved on, not two")
	assert.Empty(t, lastNote(m, 2))
}

// A proof run that another plan middleware inside this one refuses (its gate) never ran: it
// proves nothing, and no step advances on it, whatever the refusal's text.
func TestAProofRunRefusedByAnInnerPlanMiddlewareProvesNothing(t *testing.T) {
	ctx := context.Background()
	store := advanceStore(t, plan.NewMemoryBackend())
	gating, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), AgentName: "coder", ToolPrefix: "my_", GatedTools: []string{"run_tests"}})
	require.NoError(t, err)
	advancing, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "coder", AdvanceOnProof: true, ProofResult: testsPassed})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"name":"fix","status":"in_progress"}`), runTests, plantest.Answer("done"))
	runner := testRunner()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "coder", Description: "fixes", Instruction: "You fix.", Model: m,
		Handlers: []adk.ChatModelAgentMiddleware{advancing, gating}, MaxIterations: 10,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{runner}}}})
	require.NoError(t, err)
	r := toolResults(drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "fix it")))
	require.Len(t, r, 2)
	assert.Equal(t, string(plan.CodeNotApproved), errorCode(t, r[1]), r[1])
	assert.Zero(t, runner.calls, "the gate refused it")
	steps := plan.ParseSteps(mustGet(t, store, "fix").Content)
	assert.Equal(t, plan.StepInProgress, steps[0].State)
	assert.Empty(t, steps[0].Observed)
	assert.Empty(t, lastNote(m, 2))
}

// The step the host handed the agent stays in view: every later model call gets one short
// line naming it, after the history, while the agent holds it; once the agent moves it on,
// no line.
func TestTheStepTheHostHandedStaysInViewWhileHeld(t *testing.T) {
	for _, lg := range proofLanguages {
		t.Run(lg.name, func(t *testing.T) {
			store := advanceStore(t, plan.NewMemoryBackend())
			m := plantest.NewScriptedModel(call(plan.ToolUpdatePlanStep, `{"status":"in_progress"}`), runTests, edit, runTests,
				call(plan.ToolReadPlan, `{"name":"fix"}`), call(plan.ToolUpdatePlanStep, `{"next":true}`), plantest.Answer("done"))
			proofRun(t, "coder", &plan.Config{Store: store, Language: lg.lang, AdvanceOnProof: true}, m, nil, testRunner(), editor())
			want := map[string][2]string{
				"en": {`Plan fix: step 2 is yours: "Fix the lexer (uses edit_file) (proof run_tests)".`, `Plan fix: step 3 is yours: "Tell the team".`},
				"zh": {`计划 fix：第 2 步归你："Fix the lexer (uses edit_file) (proof run_tests)"。`, `计划 fix：第 3 步归你："Tell the team"。`},
			}[lg.name]
			assert.Contains(t, lastNote(m, 2), "Fix the lexer", "the advance itself")
			assert.Equal(t, want[0], lastNote(m, 3))
			assert.Contains(t, lastNote(m, 4), "Tell the team", "the next advance")
			assert.Equal(t, want[1], lastNote(m, 5))
			assert.Empty(t, lastNote(m, 6), "step 3 is done")
			assert.Equal(t, plan.StepCompleted, plan.ParseSteps(mustGet(t, store, "fix").Content)[2].State)
		})
	}
}
