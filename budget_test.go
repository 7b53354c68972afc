package plan_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/plantest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	store := approvedWithBudget(t, backend, which)

	raise := func(turn plantest.Turn) plantest.Turn {
		return func(in []*schema.Message) *schema.Message {
			person := plan.WithActor(ctx, "alice")
			cur, err := store.Get(person, "release")
			require.NoError(t, err)
			if which == "plan" {
				_, err = store.Put(person, plan.Update{Name: "release", Budget: "10k tokens"}) // keeps the approval
				require.NoError(t, err)
			} else {
				next, err := store.Put(person, plan.Update{Name: "release", BudgetStep: 1, Budget: "10k tokens", IfRevision: &cur.Revision})
				require.NoError(t, err)
				require.NotNil(t, next.Approval, "a person's raise keeps the approval")
				assert.Equal(t, "Build (uses probe) (budget 10k tokens)", plan.ParseSteps(next.Content)[0].WithoutHolder())
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
	o := runHeard(t, store, lang, m)
	results, heard := o.results, o.heard
	assert.Equal(t, "", errorCode(t, results[0]), results[0])
	assert.Equal(t, "ok", results[1], "1050 tokens: within the budget")
	code, msg := errorMessage(t, results[2])
	assert.Equal(t, plan.CodeOverBudget, code, "2100 tokens: over it")
	assert.Contains(t, msg, map[adk.Language]string{adk.LanguageEnglish: "budget", adk.LanguageChinese: "预算"}[lang])
	assert.Equal(t, "ok", results[3], "the person raised the budget")

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
	store := storeOn(t, plan.NewMemoryBackend(), "")
	body := "- [ ] a\n"
	for _, bad := range []string{"lots", "-5 tokens", "10 parsecs", "20k tokens, soon"} {
		_, err := store.Put(context.Background(), plan.Update{Name: "p", Content: &body, Budget: bad})
		assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err), bad)
	}
	_, err := store.Get(context.Background(), "p")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
}

// probe is a tool with a side effect the agent calls while it works on a step.
type probe struct{}

func (probe) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "probe", Desc: "checks something",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"what": {Type: schema.String}})}, nil
}

func (probe) InvokableRun(context.Context, string, ...tool.Option) (string, error) { return "ok", nil }

// runWorker runs an agent with the probe tool and mw, streaming or not, and returns its events.
func runWorker(t *testing.T, m *plantest.ScriptedModel, streaming bool, mw adk.ChatModelAgentMiddleware) []*adk.AgentEvent {
	t.Helper()
	ctx := context.Background()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "works", Instruction: "You work.",
		Model: m, Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 50,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{probe{}}}}})
	require.NoError(t, err)
	return drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming}).Query(ctx, "go"))
}

// toolResultsOf are the tool results of events, in order, streamed or not.
func toolResultsOf(t *testing.T, events []*adk.AgentEvent) []string {
	t.Helper()
	var out []string
	for _, ev := range events {
		if ev.Output == nil || ev.Output.MessageOutput == nil || ev.Output.MessageOutput.Role != schema.Tool {
			continue
		}
		msg, err := ev.Output.MessageOutput.GetMessage()
		require.NoError(t, err)
		out = append(out, msg.Content)
	}
	return out
}

// The model calls, tool calls and time of the agent while it holds a step are that step's
// cost: written with the step when it is completed, shown by get_plan_status and read_plan,
// heard by the host and seen in the run's events. A model reporting no usage is counted in
// calls only, and the step says so.
func TestAStepRecordsWhatItCost(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		for _, lg := range proofLanguages {
			for bname, backend := range proofBackends(t) {
				for _, usage := range []bool{true, false} {
					name := lg.name + "/" + bname
					if streaming {
						name += "/streaming"
					}
					if !usage {
						name += "/no-usage"
					}
					t.Run(name, func(t *testing.T) {
						testAStepRecordsWhatItCost(t, backend, lg.lang, streaming, usage)
					})
				}
			}
		}
	}
}

func testAStepRecordsWhatItCost(t *testing.T, backend plan.Backend, lang adk.Language, streaming, usage bool) {
	ctx := context.Background()
	store := proofStore(t, ctx, backend)
	turn := func(tt plantest.Turn) plantest.Turn {
		if !usage {
			return tt
		}
		return plantest.WithUsage(tt, plantest.Usage{PromptTokens: 1000, CompletionTokens: 50})
	}
	m := plantest.NewScriptedModel(
		turn(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)),
		turn(plantest.CallTool("probe", `{"what":"build"}`)),
		turn(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed","evidence":"make exit 0"}`)),
		turn(plantest.CallTool(plan.ToolGetPlanStatus, `{"name":"release"}`)),
		turn(plantest.CallTool(plan.ToolReadPlan, `{"name":"release"}`)),
	)
	var mu sync.Mutex
	var heard []plan.CostReport
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lang,
		OnCost: func(_ context.Context, r plan.CostReport) { mu.Lock(); heard = append(heard, r); mu.Unlock() }})
	require.NoError(t, err)
	events := runWorker(t, m, streaming, mw)
	results := toolResultsOf(t, events)
	require.Len(t, results, 5)

	// Two model calls while it held step 1 (the probe's and the completion's); two tool calls
	// (the probe, and update_plan_step completing it).
	want := plan.StepCost{PromptTokens: 2000, CompletionTokens: 100, ModelCalls: 2, ToolCalls: 2}
	line := "— cost: 2000+100 tokens, 2 calls, 2 tools, 0s — evidence: make exit 0"
	if !usage {
		want = plan.StepCost{ModelCalls: 2, NoUsage: 2, ToolCalls: 2}
		line = "— cost: 2 calls (2 without usage), 2 tools, 0s — evidence: make exit 0"
	}
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	st := plan.ParseSteps(p.Content)[0]
	require.NotNil(t, st.Cost, st.Text)
	assert.Equal(t, want, *st.Cost)
	assert.Contains(t, st.Text, line)

	var status struct {
		Cost      *plan.StepCost `json:"cost"`
		StepCosts []struct {
			Step int `json:"step"`
			plan.StepCost
		} `json:"step_costs"`
	}
	require.NoError(t, json.Unmarshal([]byte(results[3]), &status), results[3])
	require.NotNil(t, status.Cost, results[3])
	assert.Equal(t, want, *status.Cost)
	require.Len(t, status.StepCosts, 1)
	assert.Equal(t, 1, status.StepCosts[0].Step)
	assert.Equal(t, want, status.StepCosts[0].StepCost)

	var read struct {
		Cost    *plan.StepCost `json:"cost"`
		Content string         `json:"content"`
	}
	require.NoError(t, json.Unmarshal([]byte(results[4]), &read), results[4])
	require.NotNil(t, read.Cost)
	assert.Equal(t, want, *read.Cost)
	assert.Contains(t, read.Content, line)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, heard, 1)
	assert.Equal(t, plan.CostReport{Plan: "release", Step: 1, State: plan.StepCompleted, Agent: "worker-1", Cost: want}, heard[0])
	var inEvents []plan.CostReport
	for _, ev := range events {
		if ev.Output != nil {
			if r, ok := ev.Output.CustomizedOutput.(plan.CostReport); ok {
				inEvents = append(inEvents, r)
			}
		}
	}
	assert.Equal(t, heard, inEvents)
}

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
// model's language; the host's GatedCall says the same, and once the step records its cost
// the plan people read marks that budget over.
func TestAnOverBudgetResultSaysWhoseBudgetRanOut(t *testing.T) {
	said := map[adk.Language]map[string]string{
		adk.LanguageEnglish: {"step": "its own budget", "plan": "the plan's budget"},
		adk.LanguageChinese: {"step": "该步骤自身的预算", "plan": "计划的预算"},
	}
	for _, lg := range proofLanguages {
		for _, which := range []string{"step", "plan"} {
			t.Run(lg.name+"/"+which, func(t *testing.T) {
				o := overBudgetRunHeard(t, lg.lang, which, plantest.Usage{PromptTokens: 1000, CompletionTokens: 50})
				code, msg := errorMessage(t, o.results[2])
				assert.Equal(t, plan.CodeOverBudget, code)
				assert.Contains(t, msg, said[lg.lang][which])
				other := map[string]string{"step": "plan", "plan": "step"}[which]
				assert.NotContains(t, msg, said[lg.lang][other])
				require.Len(t, o.gated, 2)
				assert.Equal(t, which, o.gated[1].Over, "the host hears whose budget ran out")
				// Once the step leaves in_progress with its cost, people read what the model was told.
				assert.Equal(t, which == "step", plan.ParseSteps(o.plan.Content)[0].OverBudget)
				assert.Equal(t, which == "plan", o.plan.OverBudget)
			})
		}
	}
}

// Usage that cannot be true (negative, or MaxInt64/2 tokens a call, which summed would wrap
// round) is no usage: it never keeps a 1,500-token step within its budget, and the host hears
// how many calls reported it.
func TestAnImpossibleUsageNeverKeepsAStepWithinItsBudget(t *testing.T) {
	for _, u := range []plantest.Usage{{PromptTokens: math.MaxInt64 / 2, CompletionTokens: math.MaxInt64 / 2}, {PromptTokens: -5000, CompletionTokens: 10}} {
		o := overBudgetRunHeard(t, adk.LanguageEnglish, "step", u)
		results, heard := o.results, o.heard
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

// overBudgetOutcome is what an overBudgetRunHeard run gave the model and told the host, and
// the plan it left.
type overBudgetOutcome struct {
	results []string
	heard   []plan.CostReport
	gated   []plan.GatedCall
	plan    *plan.Plan
}

// overBudgetRunHeard runs a worker over an approved plan whose step (or the plan) may cost
// 1,500 tokens: it takes step 1, calls the gated probe twice, each model call reporting u,
// then completes the step.
func overBudgetRunHeard(t *testing.T, lang adk.Language, which string, u plantest.Usage) overBudgetOutcome {
	t.Helper()
	store := approvedWithBudget(t, plan.NewMemoryBackend(), which)
	used := func(turn plantest.Turn) plantest.Turn { return plantest.WithUsage(turn, u) }
	m := plantest.NewScriptedModel(
		used(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"in_progress"}`)),
		used(plantest.CallTool("probe", `{"what":"one"}`)),
		used(plantest.CallTool("probe", `{"what":"two"}`)),
		used(plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed"}`)),
	)
	return runHeard(t, store, lang, m)
}

// approvedWithBudget is a Store on backend holding plan "release", approved by alice, whose
// first step (which "step") or the plan itself (which "plan") has a budget of 1500 tokens and
// whose first step may use probe.
func approvedWithBudget(t *testing.T, backend plan.Backend, which string) *plan.Store {
	t.Helper()
	ctx := context.Background()
	store := storeOn(t, backend, "")
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
	return store
}

// runHeard runs worker-1, with probe gated, through the four turns of m on store, and returns
// the four tool results, what the host heard, and plan "release" as the run left it.
func runHeard(t *testing.T, store *plan.Store, lang adk.Language, m *plantest.ScriptedModel) overBudgetOutcome {
	t.Helper()
	var mu sync.Mutex
	var out overBudgetOutcome
	mw, err := plan.New(context.Background(), &plan.Config{Store: store, AgentName: "worker-1", Language: lang, GatedTools: []string{"probe"},
		OnCost:      func(_ context.Context, r plan.CostReport) { mu.Lock(); out.heard = append(out.heard, r); mu.Unlock() },
		OnGatedCall: func(_ context.Context, c plan.GatedCall) { mu.Lock(); out.gated = append(out.gated, c); mu.Unlock() }})
	require.NoError(t, err)
	results := toolResultsOf(t, runWorker(t, m, false, mw))
	require.Len(t, results, 4)
	after, err := store.Get(context.Background(), "release")
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	out.results, out.plan = results, after
	return out
}

// A person raises a step's budget as a decision of their own, without approving the body
// again: the Store writes the step's "(budget …)" and keeps the approval, under its seal. The
// same text written any other way (a rewrite of the body, an edit of the file by hand) is
// not approved.
func TestAPersonRaisesAStepsBudgetWithoutANewApproval(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := storeOn(t, newLocal(t, dir), "")
	person := plan.WithActor(ctx, "alice")
	body := "# Release\n- [ ] Build (budget 1k tokens) (uses probe)\n- [ ] Ship\n"
	p, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
	require.NoError(t, err)
	_, err = store.Approve(person, "release", p.Revision, "alice")
	require.NoError(t, err)

	raised, err := store.Put(person, plan.Update{Name: "release", BudgetStep: 1, Budget: "20k tokens"})
	require.NoError(t, err)
	require.NotNil(t, raised.Approval)
	assert.Equal(t, "# Release\n- [ ] Build (uses probe) (budget 20k tokens)\n- [ ] Ship\n", raised.Content)
	again, err := storeOn(t, newLocal(t, dir), "").Get(ctx, "release")
	require.NoError(t, err)
	require.NotNil(t, again.Approval, "the seal holds for another Store")
	assert.Equal(t, api.Budget{Tokens: 20000}, *plan.ParseSteps(again.Content)[0].Budget)
	history, err := store.History(ctx, "release")
	require.NoError(t, err)
	assert.Equal(t, "alice", history[0].Author)

	_, err = store.Put(person, plan.Update{Name: "release", BudgetStep: 3, Budget: "1h"})
	assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err), "no step 3")
	_, err = store.Put(person, plan.Update{Name: "release", BudgetStep: 1})
	assert.Equal(t, plan.CodeInvalidArgument, plan.CodeOf(err), "no budget")

	handEdit(t, dir, "release", "(budget 20k tokens)", "(budget 90k tokens)")
	edited, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Nil(t, edited.Approval, "a budget raised by hand is not the plan approved")

	_, err = store.Approve(person, "release", edited.Revision, "alice")
	require.NoError(t, err)
	rewritten := "# Release\n- [ ] Build (uses probe) (budget 200k tokens)\n- [ ] Ship\n"
	p, err = store.Put(ctx, plan.Update{Name: "release", Content: &rewritten})
	require.NoError(t, err)
	assert.Nil(t, p.Approval, "a rewrite of the body drops the approval, whatever it changes")
}

// A step whose recorded cost went over its own budget, and a plan whose steps' recorded
// costs together went over the plan's, read as over budget wherever the plan is read: Get,
// the listing, a kept revision, and the plan a change returns.
func TestWhatIsOverBudgetReadsSo(t *testing.T) {
	ctx := context.Background()
	store := storeOn(t, plan.NewMemoryBackend(), "")
	body := "# Release\n- [x] Build (budget 1k tokens) — cost: 900+200 tokens, 1 call, 0 tools, 5s\n- [ ] Ship\n"
	p, err := store.Put(ctx, plan.Update{Name: "release", Content: &body, Budget: "2k tokens"})
	require.NoError(t, err)
	assert.False(t, p.OverBudget, "1,100 of 2k tokens")
	assert.True(t, plan.ParseSteps(p.Content)[0].OverBudget)
	assert.False(t, plan.ParseSteps(p.Content)[1].OverBudget)

	p, err = store.Put(ctx, plan.Update{Name: "release", Budget: "1k tokens"})
	require.NoError(t, err)
	assert.True(t, p.OverBudget, "the plan a change returns")
	got, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.True(t, got.OverBudget)
	listing, err := store.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	assert.True(t, listing.Plans[0].OverBudget)
	old, err := store.GetRevision(ctx, "release", 1)
	require.NoError(t, err)
	assert.False(t, old.OverBudget, "revision 1 was within its plan's budget")
	raw, err := json.Marshal(got)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"over_budget":true`)
}

// A step finished without its number gets the cost its run measured, and the host hears it,
// even where the run also measured a step a person took from it since: the plan says which
// step the caller holds.
func TestAFinishWithoutAStepNumberKeepsItsCostAfterAStepWasTakenFromTheRun(t *testing.T) {
	ctx := context.Background()
	store := storeOn(t, plan.NewMemoryBackend(), "")
	body := nextPlan
	_, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
	require.NoError(t, err)
	used := func(turn plantest.Turn) plantest.Turn {
		return plantest.WithUsage(turn, plantest.Usage{PromptTokens: 1000, CompletionTokens: 50})
	}
	takenAway := func(in []*schema.Message) *schema.Message {
		_, _, err := store.MoveStep(plan.WithActor(ctx, "alice"), plan.StepMove{Name: "release", Step: 4, State: plan.StepInProgress, Takeover: true, By: "other"})
		require.NoError(t, err)
		return used(plantest.CallTool("probe", `{"what":"sign"}`))(in)
	}
	m := plantest.NewScriptedModel(
		used(plantest.CallTool(plan.ToolUpdatePlanStep, `{"step":4,"status":"in_progress"}`)),
		takenAway,
		used(plantest.CallTool(plan.ToolUpdatePlanStep, `{"step":1,"status":"in_progress"}`)),
		used(plantest.CallTool("probe", `{"what":"build"}`)),
		used(plantest.CallTool(plan.ToolUpdatePlanStep, `{"next":true}`)),
	)
	var mu sync.Mutex
	var heard []plan.CostReport
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: adk.LanguageEnglish,
		OnCost: func(_ context.Context, r plan.CostReport) { mu.Lock(); heard = append(heard, r); mu.Unlock() }})
	require.NoError(t, err)
	results := toolResultsOf(t, runWorker(t, m, false, mw))
	require.Len(t, results, 5)
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	steps := plan.ParseSteps(p.Content)
	assert.Equal(t, plan.StepCompleted, steps[0].State)
	require.NotNil(t, steps[0].Cost, "step 1's cost is written")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, heard, 1, "the host hears step 1's cost")
	assert.Equal(t, 1, heard[0].Step)
}
