package plan_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

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
