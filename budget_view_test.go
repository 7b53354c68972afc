package plan_test

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// budgetWords are what a model reads of a budget in each language: the step's budget left,
// and the reminder once 80% of it is spent.
var budgetWords = map[adk.Language]struct{ full, left, warn string }{
	adk.LanguageEnglish: {"10k of 10k tokens left", "2k of 10k tokens left", "Budget: step 1 of plan release has 2k of 10k tokens left (80% spent)."},
	adk.LanguageChinese: {"剩余 10k/10k tokens", "剩余 2k/10k tokens", "预算：计划 release 的第 1 步剩余 2k/10k tokens（已用 80%）。"},
}

// The model sees what is left of the budget of the step it holds in the results of its plan
// calls, and once, when 80% of it is spent, a reminder that travels after the history (never
// in the system message), in its language.
func TestTheHeldStepsBudgetIsInView(t *testing.T) {
	for _, lg := range proofLanguages {
		t.Run(lg.name, func(t *testing.T) {
			words := budgetWords[lg.lang]
			ctx := context.Background()
			store := storeOn(t, plan.NewMemoryBackend(), "")
			body := "# Release\n- [ ] Build (budget 10k tokens)\n- [ ] Ship\n"
			_, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
			require.NoError(t, err)
			spend := func(turn plantest.Turn) plantest.Turn {
				return plantest.WithUsage(turn, plantest.Usage{PromptTokens: 4000})
			}
			m := plantest.NewScriptedModel(
				plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","status":"in_progress"}`),
				spend(plantest.CallTool("probe", `{"what":"one"}`)),
				spend(plantest.CallTool(plan.ToolGetPlanStatus, `{"name":"release"}`)),
				plantest.CallTool("probe", `{"what":"two"}`),
				plantest.CallTool("probe", `{"what":"three"}`),
			)
			mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lg.lang})
			require.NoError(t, err)
			results := toolResultsOf(t, runWorker(t, m, false, mw))
			require.Len(t, results, 5)
			assert.Equal(t, words.full, resultField(t, results[0], "budget"), results[0])
			assert.Equal(t, words.left, resultField(t, results[2], "budget"), results[2])

			calls := m.Calls()
			reminded := 0
			for i, c := range calls {
				assert.NotContains(t, c.Input[0].Content, words.warn, "never in the system message")
				for _, msg := range c.Input {
					if msg.Role == schema.User && strings.Contains(msg.Content, words.warn) {
						reminded++
						assert.Equal(t, 3, i, "at the first call after 80%% was spent")
						assert.Same(t, c.Input[len(c.Input)-1], msg, "after the history")
					}
				}
			}
			assert.Equal(t, 1, reminded, "one reminder")
		})
	}
}

// An over_budget result says whose budget ran out, the step's own or its plan's, in the
// model's language.
func TestAnOverBudgetResultSaysWhoseBudgetRanOut(t *testing.T) {
	said := map[adk.Language]map[string]string{
		adk.LanguageEnglish: {"step": "its own budget", "plan": "the plan's budget"},
		adk.LanguageChinese: {"step": "该步骤自身的预算", "plan": "计划的预算"},
	}
	for _, lg := range proofLanguages {
		for _, which := range []string{"step", "plan"} {
			t.Run(lg.name+"/"+which, func(t *testing.T) {
				results := overBudgetRun(t, lg.lang, which, plantest.Usage{PromptTokens: 1000, CompletionTokens: 50})
				code, msg := errorMessage(t, results[2])
				assert.Equal(t, plan.CodeOverBudget, code)
				assert.Contains(t, msg, said[lg.lang][which])
				other := map[string]string{"step": "plan", "plan": "step"}[which]
				assert.NotContains(t, msg, said[lg.lang][other])
			})
		}
	}
}

// Usage that cannot be true (negative, or MaxInt64/2 tokens a call, which summed would wrap
// round) is no usage: it never keeps a 1,500-token step within its budget, and the host hears
// how many calls reported it.
func TestAnImpossibleUsageNeverKeepsAStepWithinItsBudget(t *testing.T) {
	for _, u := range []plantest.Usage{{PromptTokens: math.MaxInt64 / 2, CompletionTokens: math.MaxInt64 / 2}, {PromptTokens: -5000, CompletionTokens: 10}} {
		results, heard := overBudgetRunHeard(t, adk.LanguageEnglish, "step", u)
		for _, r := range results[1:3] {
			assert.Equal(t, plan.CodeOverBudget, plan.Code(errorCode(t, r)), "every gated call after it is refused: %v", results)
		}
		require.NotEmpty(t, heard)
		last := heard[len(heard)-1]
		assert.Positive(t, last.InvalidUsage, "%+v", last)
		assert.LessOrEqual(t, last.Cost.PromptTokens+last.Cost.CompletionTokens, int64(1e15))
		assert.GreaterOrEqual(t, last.Cost.PromptTokens, int64(0))
	}
}

// overBudgetRun runs a worker over an approved plan whose step (or the plan) may cost 1,500
// tokens: it takes step 1, calls the gated probe three times, each model call reporting u,
// then completes the step; it returns the tool results.
func overBudgetRun(t *testing.T, lang adk.Language, which string, u plantest.Usage) []string {
	results, _ := overBudgetRunHeard(t, lang, which, u)
	return results
}

func overBudgetRunHeard(t *testing.T, lang adk.Language, which string, u plantest.Usage) ([]string, []plan.CostReport) {
	t.Helper()
	ctx := context.Background()
	store := storeOn(t, plan.NewMemoryBackend(), "")
	body := "# Release\n- [ ] Build (budget 1500 tokens) (uses probe)\n- [ ] Ship\n"
	up := plan.Update{Name: "release", Content: &body}
	if which == "plan" {
		body = "# Release\n- [ ] Build (uses probe)\n- [ ] Ship\n"
		up.Budget = "1.5k tokens"
	}
	p, err := store.Put(ctx, up)
	require.NoError(t, err)
	_, err = store.Approve(ctx, "release", p.Revision, "alice")
	require.NoError(t, err)
	used := func(turn plantest.Turn) plantest.Turn { return plantest.WithUsage(turn, u) }
	m := plantest.NewScriptedModel(
		used(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)),
		used(plantest.CallTool("probe", `{"what":"one"}`)),
		used(plantest.CallTool("probe", `{"what":"two"}`)),
		used(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed"}`)),
	)
	var mu sync.Mutex
	var heard []plan.CostReport
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lang, GatedTools: []string{"probe"},
		OnCost: func(_ context.Context, r plan.CostReport) { mu.Lock(); heard = append(heard, r); mu.Unlock() }})
	require.NoError(t, err)
	results := toolResultsOf(t, runWorker(t, m, false, mw))
	require.Len(t, results, 4)
	mu.Lock()
	defer mu.Unlock()
	return results, heard
}
