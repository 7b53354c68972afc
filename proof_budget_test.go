package plan_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan/api"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// Under plan mode a step that went over its budget (its own, or its plan's) stops its gated
// tools with over_budget, in the model's language, and the host hears it once; once a person
// raises the budget the tools run again, in the same run.
func TestAStepOverItsBudgetStopsItsGatedToolsUntilAPersonRaisesIt(t *testing.T) {
	for _, lg := range proofLanguages {
		for bname, backend := range proofBackends(t) {
			for _, which := range []string{"step", "plan"} {
				t.Run(lg.name+"/"+bname+"/"+which, func(t *testing.T) {
					testOverBudget(t, backend, lg.lang, which)
				})
			}
		}
	}
}

func testOverBudget(t *testing.T, backend plan.Backend, lang adk.Language, which string) {
	ctx := context.Background()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	body := "# Release\n- [ ] Build (budget 1500 tokens) (uses probe)\n- [ ] Ship\n"
	u := plan.Update{Name: "release", Content: &body}
	if which == "plan" {
		body = "# Release\n- [ ] Build (uses probe)\n- [ ] Ship\n"
		u.Budget = "1.5k tokens"
	}
	p, err := store.Put(ctx, u)
	require.NoError(t, err)
	_, err = store.Approve(ctx, "release", p.Revision, "alice")
	require.NoError(t, err)

	raise := func(turn plantest.Turn) plantest.Turn {
		return func(in []*schema.Message) *schema.Message {
			person := plan.WithActor(ctx, "alice")
			cur, err := store.Get(person, "release")
			require.NoError(t, err)
			if which == "plan" {
				_, err = store.Put(person, plan.Update{Name: "release", Budget: "10k tokens"}) // keeps the approval
				require.NoError(t, err)
			} else {
				raised := "# Release\n- [~] Build (budget 10k tokens) (uses probe) (@worker-1)\n- [ ] Ship\n"
				next, err := store.Put(person, plan.Update{Name: "release", Content: &raised, IfRevision: &cur.Revision})
				require.NoError(t, err)
				_, err = store.Approve(person, "release", next.Revision, "alice")
				require.NoError(t, err)
			}
			return turn(in)
		}
	}
	m := plantest.NewScriptedModel(
		billed(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)),
		billed(plantest.CallTool("probe", `{"what":"one"}`)),
		billed(plantest.CallTool("probe", `{"what":"two"}`)),
		billed(raise(plantest.CallTool("probe", `{"what":"three"}`))),
	)
	var mu sync.Mutex
	var heard []plan.CostReport
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lang, GatedTools: []string{"probe"},
		OnCost: func(_ context.Context, r plan.CostReport) { mu.Lock(); heard = append(heard, r); mu.Unlock() }})
	require.NoError(t, err)
	results := toolResultsOf(t, runWorker(t, m, false, mw))
	require.Len(t, results, 4)
	assert.Equal(t, "", errorCode(t, results[0]), results[0])
	assert.Equal(t, "ok", results[1], "1050 tokens: within the budget")
	code, msg := errorMessage(t, results[2])
	assert.Equal(t, plan.CodeOverBudget, code, "2100 tokens: over it")
	assert.Contains(t, msg, map[adk.Language]string{adk.LanguageEnglish: "budget", adk.LanguageChinese: "预算"}[lang])
	assert.Equal(t, "ok", results[3], "the person raised the budget")

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, heard, 1, "heard once")
	assert.Equal(t, which, heard[0].Over)
	assert.Equal(t, api.Budget{Tokens: 1500}, *heard[0].Budget)
	assert.Equal(t, int64(2100), heard[0].Cost.PromptTokens+heard[0].Cost.CompletionTokens)
}

// The approval request shows what the plan may cost in total: its own budget, else what its
// steps' budgets add up to.
func TestTheApprovalRequestShowsThePlansBudget(t *testing.T) {
	for _, tc := range []struct {
		name, body, budget string
		want               api.Budget
	}{
		{"steps", "# Release\n- [ ] Build (budget 20k tokens)\n- [ ] Ship (budget 10m)\n- [ ] Tell (budget 5k tokens, 2m)\n", "", api.Budget{Tokens: 25000, Time: 12 * time.Minute}},
		{"plan", "# Release\n- [ ] Build (budget 20k tokens)\n", "200k tokens, 1h", api.Budget{Tokens: 200000, Time: time.Hour}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
			_, err := r.store.Put(r.ctx, plan.Update{Name: "release", Content: &tc.body, Budget: tc.budget})
			require.NoError(t, err)
			model := plantest.NewScriptedModel(billed(plantest.CallTool("request_plan_approval", `{"name":"release"}`)))
			paused := r.start(r.runner(model))
			require.Len(t, paused, 1)
			require.NotNil(t, paused[0].req.Budget)
			assert.Equal(t, tc.want, *paused[0].req.Budget)
		})
	}
}

// A plan budget that does not read is refused, and nothing is written.
func TestAPlanBudgetMustRead(t *testing.T) {
	store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	body := "- [ ] a\n"
	for _, bad := range []string{"lots", "-5 tokens", "10 parsecs", "20k tokens, soon"} {
		_, err := store.Put(context.Background(), plan.Update{Name: "p", Content: &body, Budget: bad})
		assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err), bad)
	}
	_, err = store.Get(context.Background(), "p")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
}
