package plan_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/einoplan/plan/driver"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// corpusCase is one call of testdata/args_corpus.json: a common argument mistake (or the
// call written right) and its expected outcome: "ok" (accepted), "interrupt" (accepted: the
// run pauses for a person) or the error code it is refused with. Contains is a text the
// result shows, such as the canonical form of what was normalized.
type corpusCase struct {
	Tool     string `json:"tool"`
	Args     string `json:"args"`
	Want     string `json:"want"`
	Contains string `json:"contains"`
	Why      string `json:"why"`
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	raw, err := os.ReadFile("testdata/args_corpus.json")
	require.NoError(t, err)
	var file struct {
		Cases []corpusCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(raw, &file))
	return file.Cases
}

// corpusBody is plan p at revision 1.
const corpusBody = "# P\n- [ ] one\n- [ ] two\n- [ ] three\n"

// corpusTools gives a fresh plan p at revision 1, a plan team whose step 1 another agent
// holds, a workspace file /work/p.md, and the tools of one middleware acting as "worker" in
// lang.
func corpusTools(t *testing.T, lang adk.Language, approval bool) (context.Context, map[string]tool.InvokableTool, *plan.Store, *plan.MemoryBackend) {
	t.Helper()
	ctx := context.Background()
	backend, ws := plan.NewMemoryBackend(), plan.NewMemoryBackend()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	body := corpusBody
	_, err = store.Put(ctx, plan.Update{Name: "p", Content: &body, Status: "draft"})
	require.NoError(t, err)
	_, err = store.Put(ctx, plan.Update{Name: "team", Content: &body})
	require.NoError(t, err)
	_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "team", Step: 1, State: plan.StepInProgress, By: "other"})
	require.NoError(t, err)
	require.NoError(t, ws.Write(ctx, &driver.WriteRequest{FilePath: "/work/p.md", Content: "# P from a file\n- [ ] one\n"}))
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, Workspace: ws, AgentName: "worker", Language: lang, RequireApproval: approval})
	require.NoError(t, err)
	runCtx, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{Instruction: "base"})
	require.NoError(t, err)
	tools := map[string]tool.InvokableTool{}
	for _, bt := range rc.Tools {
		info, err := bt.Info(ctx)
		require.NoError(t, err)
		tools[info.Name] = bt.(tool.InvokableTool)
	}
	return runCtx, tools, store, ws
}

// corpusOutcome runs one case and returns what came of it: "ok", "interrupt" or the error
// code, the result text, and the error message when refused.
func corpusOutcome(t *testing.T, lang adk.Language, c corpusCase) (outcome, result, message string, before, after *plan.Plan) {
	t.Helper()
	ctx, tools, store, _ := corpusTools(t, lang, c.Tool == plan.ToolRequestPlanApproval)
	before, err := store.Get(ctx, "p")
	require.NoError(t, err)
	tl, ok := tools[c.Tool]
	require.True(t, ok, "tool %s is offered", c.Tool)
	result, err = tl.InvokableRun(ctx, c.Args)
	after, _ = store.Get(ctx, "p")
	if err != nil {
		return "interrupt", "", "", before, after
	}
	if c.Tool == plan.ToolPlanTemplate && !strings.HasPrefix(result, "{") {
		return "ok", result, "", before, after
	}
	var r struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, sonic.UnmarshalString(result, &r), result)
	if r.Error == nil {
		return "ok", result, "", before, after
	}
	return r.Error.Code, result, r.Error.Message, before, after
}

// TestArgumentCorpus: every call of the corpus, in English and in Chinese, has its expected
// outcome. An accepted call shows what was normalized, in canonical form; a refused call
// writes nothing and answers in the model's language. PLAN_CORPUS_COUNT=1 only counts the
// outcomes (to measure a version of the tools that predates the corpus).
func TestArgumentCorpus(t *testing.T) {
	cases := loadCorpus(t)
	require.GreaterOrEqual(t, len(cases), 60)
	counting := os.Getenv("PLAN_CORPUS_COUNT") != ""
	tools := map[string]bool{}
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		accepted, expected, wrong := 0, 0, 0
		for i, c := range cases {
			tools[c.Tool] = true
			outcome, result, message, before, after := corpusOutcome(t, lang, c)
			if outcome == "ok" || outcome == "interrupt" {
				accepted++
				if c.Want != "ok" && c.Want != "interrupt" {
					wrong++ // accepted a call that has no one meaning, or dropped its guard
				}
			}
			if outcome == c.Want {
				expected++
			}
			if counting {
				continue
			}
			label := c.Tool + " " + c.Args
			if !assert.Equal(t, c.Want, outcome, "case %d %s (%s)\nresult: %s", i, label, c.Why, result) {
				continue
			}
			if c.Contains != "" {
				assert.Contains(t, result, c.Contains, "case %d %s", i, label)
			}
			if outcome != "ok" && outcome != "interrupt" {
				require.NotNil(t, after, label)
				assert.Equal(t, before.Revision, after.Revision, "a refused call writes nothing: %s", label)
				assert.Equal(t, before.Content, after.Content, label)
				if lang == adk.LanguageChinese {
					assert.True(t, hasHanText(message), "the message is in Chinese: %s: %s", label, message)
					n, words := englishRun(message)
					assert.Less(t, n, 2, "the Chinese message carries English %q: %s: %s", words, label, message)
				}
			}
		}
		t.Logf("language %v: %d calls, %d accepted (%d of them should have been refused), %d with the expected outcome",
			lang, len(cases), accepted, wrong, expected)
	}
	for _, name := range []string{plan.ToolWritePlan, plan.ToolReadPlan, plan.ToolListPlans, plan.ToolDeletePlan,
		plan.ToolSetPlanStatus, plan.ToolGetPlanStatus, plan.ToolUpdatePlanStep, plan.ToolExportPlanToFile,
		plan.ToolUpdatePlanFromFile, plan.ToolPlanTemplate, plan.ToolRequestPlanApproval} {
		assert.True(t, tools[name], "the corpus has calls of %s", name)
	}
}

func hasHanText(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// TestSloppyAgentFinishesWithoutARefusal: a real agent run whose model makes five common
// argument mistakes (a fenced call, aliases, a decimal-string step, a synonym state, a
// revision under another name, a string limit) gets every call accepted, each result names
// the canonical form, and the guards were checked.
func TestSloppyAgentFinishesWithoutARefusal(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "planner"})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolWritePlan, "```json\n{\"plan_name\":\"ship\",\"body\":\"# Ship\\n- [ ] build\\n- [ ] test\\n\"}\n```"),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"ship","step":"1","state":"in progress"}`),
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"ship","step":1.0,"status":"Done","revision":"2"}`),
		plantest.CallTool(plan.ToolSetPlanStatus, `{"name":"ship","state":"shipping","expected_revision":3}`),
		plantest.CallTool(plan.ToolListPlans, `{"limit":"10"}`),
		plantest.Answer("shipped"),
	)
	results := toolResults(runAgent(t, m, mw))
	require.Len(t, results, 5)
	for i, r := range results {
		assert.Empty(t, errorCode(t, r), "call %d was refused: %s", i, r)
		assert.Contains(t, r, `"normalized"`, "call %d shows the canonical form: %s", i, r)
	}
	assert.Contains(t, results[1], `state->status=\"in_progress\"`)
	assert.Contains(t, results[2], `revision->last_known_revision=2`)

	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	p, err := store.Get(ctx, "ship")
	require.NoError(t, err)
	assert.EqualValues(t, 4, p.Revision)
	assert.Equal(t, "shipping", p.Status)
	assert.Contains(t, p.Content, "- [x] build")
}

// TestNoGuardIsDropped: a stale revision under any name, known or not, on every tool that
// takes a guard, is either checked (revision_conflict) or refused (invalid_argument), and
// nothing is written.
func TestNoGuardIsDropped(t *testing.T) {
	calls := map[string]string{
		plan.ToolWritePlan:          `{"name":"p","content":"# P\n- [ ] new\n",%s}`,
		plan.ToolDeletePlan:         `{"name":"p",%s}`,
		plan.ToolSetPlanStatus:      `{"name":"p","status":"done",%s}`,
		plan.ToolUpdatePlanStep:     `{"name":"p","step":1,"status":"completed",%s}`,
		plan.ToolUpdatePlanFromFile: `{"name":"p","path":"/work/p.md",%s}`,
	}
	spellings := []string{"last_known_revision", "lastKnownRevision", "revision", "Revision", "expected_revision",
		"expectedRevision", "if_revision", "known_revision", "base_revision", "current_revision", "rev",
		"if_match", "version", "etag", "revision_number", "expected_version", "parent", "since_revision"}
	for tool, form := range calls {
		for _, key := range spellings {
			for _, value := range []string{"9", `"9"`, "9.0"} {
				args := strings.Replace(form, "%s", `"`+key+`":`+value, 1)
				outcome, result, _, before, after := corpusOutcome(t, adk.LanguageEnglish, corpusCase{Tool: tool, Args: args})
				assert.Contains(t, []string{"revision_conflict", "invalid_argument"}, outcome, "%s %s: %s", tool, args, result)
				require.NotNil(t, after, "%s %s deleted the plan: %s", tool, args, result)
				assert.Equal(t, before.Revision, after.Revision, "%s %s wrote: %s", tool, args, result)
			}
		}
	}
}
