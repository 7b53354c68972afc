package plan_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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
var proofLanguages = []struct {
	name string
	lang adk.Language
	word string // the word for evidence in that language
}{{"en", adk.LanguageEnglish, "evidence"}, {"zh", adk.LanguageChinese, "证据"}}

// proofStore returns a Store on backend that holds proofPlan as "release".
func proofStore(t *testing.T, ctx context.Context, backend plan.Backend) *plan.Store {
	return releaseStore(t, ctx, backend, proofPlan)
}

// releaseStore returns a Store on backend that holds body as plan "release".
func releaseStore(t *testing.T, ctx context.Context, backend plan.Backend, body string) *plan.Store {
	t.Helper()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = store.Put(ctx, plan.Update{Name: "release", Content: &body})
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
	for _, lg := range proofLanguages {
		for bname, backend := range proofBackends(t) {
			t.Run(lg.name+"/"+bname, func(t *testing.T) {
				ctx := context.Background()
				store := proofStore(t, ctx, backend)
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
	}
}

// Under Config.RequireEvidence a completion without evidence is refused with
// evidence_required in the model's language, and nothing is written: the step stays in
// progress with its holder.
func TestACompletionWithoutEvidenceIsRefusedWhenEvidenceIsRequired(t *testing.T) {
	for _, lg := range proofLanguages {
		for bname, backend := range proofBackends(t) {
			t.Run(lg.name+"/"+bname, func(t *testing.T) {
				ctx := context.Background()
				store := proofStore(t, ctx, backend)
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
	}
}

// Evidence is written by a step move, so a completion with evidence keeps the approval as a
// note does; evidence that cannot be read back whole, or that comes with a move finishing
// nothing, is refused and nothing is written.
func TestEvidenceKeepsTheApprovalAndIsBounded(t *testing.T) {
	for bname, backend := range proofBackends(t) {
		t.Run(bname, func(t *testing.T) {
			ctx := context.Background()
			store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
			require.NoError(t, err)
			p, err := store.Put(ctx, plan.Update{Name: "release", Content: &[]string{proofPlan}[0]})
			require.NoError(t, err)
			_, err = store.Approve(ctx, "release", p.Revision, "alice")
			require.NoError(t, err)
			_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepInProgress, By: "w1"})
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
