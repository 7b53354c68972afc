package backendtest

import (
	"context"
	"errors"
	"strings"
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

// testProofOfDone: in real agent runs on the backend, in English and Chinese, a completion
// keeps its evidence and what the step cost, one without evidence is refused where evidence is required, a
// verifier's refusal writes nothing, and a step asking for review is completed by someone
// other than its doer; a step over its budget stops its gated tools.
func testProofOfDone(t *testing.T, b plan.Backend, dir string) {
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		name := map[adk.Language]string{adk.LanguageEnglish: "ship-en", adk.LanguageChinese: "ship-zh"}[lang]
		ctx := context.Background()
		s, _ := storeHolding(t, b, dir, name, "# Ship\n- [ ] Build\n- [ ] Publish (review)\n")
		verify := func(_ context.Context, c plan.Completion) error {
			if !strings.Contains(c.Evidence, "exit 0") {
				return errors.New("no passing run in the evidence")
			}
			return nil
		}
		call := func(args string) plantest.Turn {
			return plantest.WithUsage(plantest.CallTool(plan.ToolUpdatePlanStep, args), plantest.Usage{PromptTokens: 900, CompletionTokens: 40})
		}
		worker := agentRun(t, ctx, s, "worker-1", lang, verify,
			call(`{"name":"`+name+`","step":1,"status":"in_progress"}`),
			call(`{"name":"`+name+`","step":1,"status":"completed"}`),
			call(`{"name":"`+name+`","step":1,"status":"completed","evidence":"make build"}`),
			call(`{"name":"`+name+`","step":1,"status":"completed","evidence":"make build exit 0"}`),
			call(`{"name":"`+name+`","step":2,"status":"in_progress"}`),
			call(`{"name":"`+name+`","step":2,"status":"completed","evidence":"upload exit 0"}`),
			call(`{"name":"`+name+`","step":2,"status":"completed","evidence":"upload exit 0"}`),
		)
		require.Len(t, worker, 7)
		assert.Equal(t, "evidence_required", resultCode(t, worker[1]), worker[1])
		assert.Equal(t, "not_verified", resultCode(t, worker[2]), worker[2])
		assert.Equal(t, "", resultCode(t, worker[3]), worker[3])
		assert.Equal(t, "", resultCode(t, worker[5]), worker[5])
		assert.Equal(t, "illegal_transition", resultCode(t, worker[6]), worker[6])

		p, err := s.Get(ctx, name)
		require.NoError(t, err)
		steps := plan.ParseSteps(p.Content)
		assert.Equal(t, plan.StepCompleted, steps[0].State)
		assert.Equal(t, "make build exit 0", steps[0].Evidence)
		// Three model calls and three tool calls while worker-1 held step 1.
		if assert.NotNil(t, steps[0].Cost, steps[0].Text) {
			c := *steps[0].Cost
			c.Seconds = 0
			assert.Equal(t, plan.StepCost{PromptTokens: 2700, CompletionTokens: 120, ModelCalls: 3, ToolCalls: 3}, c)
		}
		assert.True(t, steps[1].AwaitingReview, steps[1].Text)
		assert.Equal(t, "worker-1", steps[1].DoneBy)

		reviewer := agentRun(t, ctx, s, "worker-2", lang, verify, call(`{"name":"`+name+`","step":2,"status":"completed"}`))
		require.Len(t, reviewer, 1)
		assert.Equal(t, "", resultCode(t, reviewer[0]), reviewer[0])
		p, err = s.Get(ctx, name)
		require.NoError(t, err)
		assert.Equal(t, 100, plan.Summarize(p).Progress.Percent)
		assert.Equal(t, "upload exit 0", plan.ParseSteps(p.Content)[1].Evidence)
		testBudget(t, s, lang, name+"-budget")
	}
}

// testBudget: in plan mode a step over its budget stops its gated tools (over_budget), and
// the host hears it.
func testBudget(t *testing.T, s *plan.Store, lang adk.Language, name string) {
	ctx := context.Background()
	p, err := s.Put(ctx, plan.Update{Name: name, Content: ptr("# Budget\n- [ ] Build (budget 1k tokens) (uses probe)\n")})
	require.NoError(t, err)
	_, err = s.Approve(ctx, name, p.Revision, "alice")
	require.NoError(t, err)
	var heard []plan.CostReport
	mw, err := plan.New(ctx, &plan.Config{Store: s, AgentName: "worker-1", Language: lang, GatedTools: []string{"probe"},
		OnCost: func(_ context.Context, r plan.CostReport) { heard = append(heard, r) }})
	require.NoError(t, err)
	turn := func(tool, args string) plantest.Turn {
		return plantest.WithUsage(plantest.CallTool(tool, args), plantest.Usage{PromptTokens: 900, CompletionTokens: 40})
	}
	a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker-1", Description: "works", Instruction: "Work.",
		Model: plantest.NewScriptedModel(
			turn(plan.ToolUpdatePlanStep, `{"name":"`+name+`","step":1,"status":"in_progress"}`),
			turn("probe", `{}`),
			turn("probe", `{}`),
		), Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 20,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{probe{}}}}})
	require.NoError(t, err)
	var results []string
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: a}).Query(ctx, "go")
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		require.NoError(t, ev.Err)
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil && ev.Output.MessageOutput.Message.Role == schema.Tool {
			results = append(results, ev.Output.MessageOutput.Message.Content)
		}
	}
	require.Len(t, results, 3)
	assert.Equal(t, "ran", results[1], "940 tokens: within the budget")
	assert.Equal(t, "over_budget", resultCode(t, results[2]), "1880 tokens: over it")
	require.Len(t, heard, 1)
	assert.Equal(t, "step", heard[0].Over)
}

// probe is a tool with a side effect, gated in plan mode.
type probe struct{}

func (probe) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "probe", Desc: "checks", ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{})}, nil
}

func (probe) InvokableRun(context.Context, string, ...tool.Option) (string, error) { return "ran", nil }

// agentRun runs an agent named agent on s with the plan middleware, requiring evidence and
// checking completions with verify, and returns its tool results in order.
func agentRun(t *testing.T, ctx context.Context, s *plan.Store, agent string, lang adk.Language, verify func(context.Context, plan.Completion) error, turns ...plantest.Turn) []string {
	t.Helper()
	mw, err := plan.New(ctx, &plan.Config{Store: s, AgentName: agent, Language: lang, RequireEvidence: true, Verify: verify})
	require.NoError(t, err)
	a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: agent, Description: "works", Instruction: "Work.",
		Model: plantest.NewScriptedModel(turns...), Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 50})
	require.NoError(t, err)
	return plantest.RunAgent(t, ctx, a, "go")
}

// resultCode is the error code of a tool result; "" for a success.
var resultCode = plantest.ErrorCode
