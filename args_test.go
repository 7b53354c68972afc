package plan_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/plantest"
)

const hugeInput = 12 << 20

// hugePlanBody is about n bytes of Markdown whose JSON form needs escapes (newlines,
// quotes), so a decoder cannot hand out slices of the arguments as the string.
func hugePlanBody(n int) string {
	line := "- [ ] step with \"quotes\", ünïcödé and a tab\there\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// allocated runs f after a collection and returns the bytes allocated while it ran and
// the growth of the live heap it left behind.
func allocated(f func()) (total, live int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	total = int64(after.TotalAlloc - before.TotalAlloc)
	runtime.GC()
	runtime.ReadMemStats(&after)
	live = int64(after.HeapAlloc) - int64(before.HeapAlloc)
	return total, live
}

// Tool arguments too large to hold an acceptable plan are refused as too_large before they are
// decoded: refusing 50 MiB allocates a few MiB at most, and nothing is written.
func TestOversizedArgumentsAreRefusedCheaply(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	args := `{"name":"huge","content":` + quote(hugePlanBody(hugeInput)) + `}`
	var out string
	total, live := allocated(func() {
		out, err = tools["write_plan"].InvokableRun(ctx, args)
	})
	require.NoError(t, err)
	assert.Equal(t, "too_large", errorCode(t, out), out)
	t.Logf("arguments %d MiB: allocated %.1f MiB, live heap growth %.1f MiB", len(args)>>20, float64(total)/(1<<20), float64(live)/(1<<20))
	// Arguments that cannot hold an acceptable plan are refused before decoding.
	// (The bound leaves room for what the runtime and the test framework allocate meanwhile;
	// decoding the arguments would allocate over 50 MiB.)
	assert.LessOrEqual(t, total, int64(4<<20), "allocations while refusing %d bytes of arguments", len(args))
	assert.LessOrEqual(t, live, int64(2<<20))
	_, err = backend.Read(ctx, &driver.ReadRequest{FilePath: "/plans/huge.md"})
	require.Error(t, err, "nothing was written")
	runtime.KeepAlive(args)
}

// The bound on argument size never refuses an acceptable call, even one whose every byte is
// escaped; past the bound a call is refused whatever it holds, and nothing is written.
func TestArgumentBoundKeepsEveryAcceptableCall(t *testing.T) {
	const maxContent = 4 << 10
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Store: storeOf(t, plan.StoreConfig{Backend: backend, MaxContentBytes: maxContent})})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)

	// The worst case for the bound: every byte of the largest body and of the largest
	// header fields escaped as \u00XX.
	control := func(n int) string { return strings.Repeat("\x01", n) }
	args := `{"name":"escaped","content":` + quote(control(maxContent)) + `,"title":` + quote(control(1024)) +
		`,"status":` + quote(control(1024)) + `,"author":` + quote(control(1024)) + `,"last_known_revision":0}`
	require.Greater(t, len(args), 6*maxContent+3*6*1024)
	out, err := tools["write_plan"].InvokableRun(ctx, args)
	require.NoError(t, err)
	require.Empty(t, errorCode(t, out), out)
	p := storeOn(t, backend, "")
	got, err := p.Get(ctx, "escaped")
	require.NoError(t, err)
	require.Equal(t, control(maxContent), got.Content)

	// Past the bound, even a call whose plan would fit is refused, and nothing is written.
	padding := strings.Repeat(" ", 6*maxContent+64<<10)
	out, err = tools["write_plan"].InvokableRun(ctx, `{"name":"padded","content":"x"}`+padding)
	require.NoError(t, err)
	require.Equal(t, "too_large", errorCode(t, out), out)
	_, err = p.Get(ctx, "padded")
	require.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
	out, err = tools["write_plan"].InvokableRun(ctx, `{"name":"padded","content":"x"}`+padding[:len(padding)-len(`{"name":"padded","content":"x"}`)])
	require.NoError(t, err)
	require.Empty(t, errorCode(t, out), "exactly at the bound: %s", out)
}

// Arguments past the bound are told what limit they passed: the plan cap for write_plan,
// whose body is the only large thing a call holds, and the bound itself, with no advice
// about plans, for a tool that takes no body; in the model's language either way.
func TestOversizedArgumentsAreToldTheLimitTheyPassed(t *testing.T) {
	const maxContent = 2048
	bound := 6*maxContent + 64<<10
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		ctx := context.Background()
		mw, err := plan.New(ctx, &plan.Config{Store: storeOf(t, plan.StoreConfig{Backend: plan.NewMemoryBackend(), MaxContentBytes: maxContent}), Language: lang})
		require.NoError(t, err)
		ctx, _, tools := beforeAgentTools(t, ctx, mw)
		huge := `{"name":"` + strings.Repeat("a", bound) + `"}`

		out, err := tools["read_plan"].InvokableRun(ctx, huge)
		require.NoError(t, err)
		require.Equal(t, "too_large", errorCode(t, out), out)
		assert.Contains(t, out, strconv.Itoa(bound), "lang %v: %s", lang, out)
		assert.NotContains(t, out, strconv.Itoa(maxContent)+" ", "lang %v: %s", lang, out)
		plans := map[adk.Language]string{adk.LanguageEnglish: "plan", adk.LanguageChinese: "计划"}[lang]
		assert.NotContains(t, out, plans, "lang %v: a call with no plan is told about plans: %s", lang, out)

		out, err = tools["write_plan"].InvokableRun(ctx, huge)
		require.NoError(t, err)
		require.Equal(t, "too_large", errorCode(t, out), out)
		assert.Contains(t, out, strconv.Itoa(maxContent), "lang %v: %s", lang, out)
	}
}

// writeHugeFile writes n bytes of Markdown to a new file at p, a chunk at a time.
func writeHugeFile(t *testing.T, p string, n int) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
	f, err := os.Create(p)
	require.NoError(t, err)
	chunk := hugePlanBody(1 << 20)
	for written := 0; written < n; written += len(chunk) {
		_, err = f.WriteString(chunk[:min(len(chunk), n-written)])
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
}

// TestOversizedFilesAreReadOnlyUpToTheCap: a 12 MiB workspace file given to
// update_plan_from_file, and a 12 MiB file in the plans folder, are refused as too_large
// after reading at most the cap and a byte (plus the header allowance for a plan file).
func TestOversizedFilesAreReadOnlyUpToTheCap(t *testing.T) {
	ctx := context.Background()
	storeRoot, wsRoot := t.TempDir(), t.TempDir()
	backend, ws := newLocal(t, storeRoot), newLocal(t, wsRoot)
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, Workspace: ws})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	writeHugeFile(t, filepath.Join(wsRoot, "work", "huge.md"), hugeInput)
	writeHugeFile(t, filepath.Join(storeRoot, "plans", "huge.md"), hugeInput)

	for _, c := range []struct{ tool, args string }{
		{"update_plan_from_file", `{"name":"fresh","path":"/work/huge.md"}`},
		{"read_plan", `{"name":"huge"}`},
		{"get_plan_status", `{"name":"huge"}`},
		{"write_plan", `{"name":"huge","content":"x","last_known_revision":1}`},
		{"list_plans", `{}`},
	} {
		var out string
		total, live := allocated(func() {
			out, err = tools[c.tool].InvokableRun(ctx, c.args)
		})
		require.NoError(t, err)
		t.Logf("%s: allocated %.1f MiB, live heap growth %.1f MiB", c.tool, float64(total)/(1<<20), float64(live)/(1<<20))
		if c.tool == "list_plans" {
			assert.Contains(t, out, `"warnings":[{"name":"huge","code":"too_large"`, out)
		} else {
			assert.Equal(t, "too_large", errorCode(t, out), "%s: %s", c.tool, out)
		}
		// Reading cap+1 bytes and turning them into a string is 2 MiB; the rest is room
		// for what the runtime allocates meanwhile.
		assert.LessOrEqual(t, total, int64(6<<20), "%s read a 12 MiB file", c.tool)
		assert.LessOrEqual(t, live, int64(2<<20), c.tool)
	}
	_, err = os.Stat(filepath.Join(storeRoot, "plans", "fresh.md"))
	require.ErrorIs(t, err, os.ErrNotExist)

	// An unguarded delete still removes the oversized plan file.
	out, err := tools["delete_plan"].InvokableRun(ctx, `{"name":"huge"}`)
	require.NoError(t, err)
	require.Empty(t, errorCode(t, out), out)
	_, err = os.Stat(filepath.Join(storeRoot, "plans", "huge.md"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// A key given twice reads as an alias does: a null says nothing, so a revision guard it
// follows still guards; two different values are refused in the model's language and
// nothing is written; the same value twice is one argument.
func TestARepeatedArgumentNeverDropsOrSwapsAValue(t *testing.T) {
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		ctx := context.Background()
		store, backend := newStoreWith(t, plan.StoreConfig{}, "release", "# Release\n- [ ] tag\n- [ ] ship\n")
		_, err := store.SetStatus(ctx, "release", "in-progress", nil) // a teammate's change: revision 2
		require.NoError(t, err)
		mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "me", Language: lang})
		require.NoError(t, err)
		ctx, _, tools := beforeAgentTools(t, ctx, mw)

		for _, tc := range []struct{ args, code, says string }{
			{`{"name":"release","content":"# Mine\n","last_known_revision":1,"last_known_revision":null}`, "revision_conflict", ""},
			{`{"name":"release","content":"# Mine\n","last_known_revision":null,"last_known_revision":1}`, "revision_conflict", ""},
			{`{"name":"release","content":"# Mine\n","last_known_revision":1,"last_known_revision":2}`, "invalid_argument", "last_known_revision"},
			{`{"name":"alpha","name":"beta","content":"# X\n"}`, "invalid_argument", "name"},
			{"```json\n{\"name\":\"alpha\",\"na\\u006de\":\"beta\",\"content\":\"# X\\n\"}\n```", "invalid_argument", "name"},
			{`"{\"name\":\"alpha\",\"name\":\"beta\",\"content\":\"# X\\n\"}"`, "invalid_argument", "name"},
			{"{\"name\":\"release\",\"content\":\"# Mine\n- [ ] x\n\",\"last_known_revision\":1,\"last_known_revision\":null}", "revision_conflict", ""},
			{"{\"name\":\"alpha\",\"content\":\"# X\n\t\",\"name\":\"beta\"}", "invalid_argument", "name"},
		} {
			out, err := tools["write_plan"].InvokableRun(ctx, tc.args)
			require.NoError(t, err)
			assert.Equal(t, tc.code, errorCode(t, out), "lang %v: %s -> %s", lang, tc.args, out)
			assert.Contains(t, out, tc.says)
			if lang == adk.LanguageChinese && tc.code == "invalid_argument" {
				assert.Contains(t, out, "出现了不止一次")
			}
		}
		p, err := store.Get(ctx, "release")
		require.NoError(t, err)
		assert.Equal(t, int64(2), p.Revision, "lang %v: a refused call wrote", lang)
		for _, name := range []string{"alpha", "beta"} {
			_, err = store.Get(ctx, name)
			assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err), "lang %v: plan %s was created", lang, name)
		}

		out, err := tools["write_plan"].InvokableRun(ctx, `{"name":"release","content":"# Mine\n","last_known_revision":2,"last_known_revision":2,"content":"# Mine\n"}`)
		require.NoError(t, err)
		assert.Equal(t, "", errorCode(t, out), out)
		p, err = store.Get(ctx, "release")
		require.NoError(t, err)
		assert.Equal(t, "# Mine\n", p.Content)
	}
}

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
	store := storeOn(t, backend, "")
	body := corpusBody
	_, err := store.Put(ctx, plan.Update{Name: "p", Content: &body, Status: "draft"})
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
	var r errorOut
	require.NoError(t, sonic.UnmarshalString(result, &r), result)
	if r.Error == nil {
		return "ok", result, "", before, after
	}
	return string(r.Error.Code), result, r.Error.Message, before, after
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
					assert.True(t, hasHan(message), "the message is in Chinese: %s: %s", label, message)
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

	store := storeOn(t, backend, "")
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
