package plan_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/plantest"
)

// Every change a tool makes is reported to the host's OnChange, and the run's events carry the
// same changes; a refused call reports nothing.
func TestChangesReportedToHostAndAsEvents(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var hostChanges []plan.Change
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), OnChange: func(_ context.Context, c plan.Change) {
		mu.Lock()
		hostChanges = append(hostChanges, c)
		mu.Unlock()
	}})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"p","content":"- [ ] a\n- [ ] b\n"}`),
		plantest.CallTool("write_plan", `{"name":"p","content":"x","last_known_revision":9}`),
		plantest.CallTool("set_plan_status", `{"name":"p","status":"active"}`),
		plantest.CallTool("update_plan_step", `{"name":"p","step":1,"status":"completed"}`),
		plantest.CallTool("update_plan_step", `{"name":"p","step":1,"status":"failed"}`),
		plantest.CallTool("delete_plan", `{"name":"p"}`),
	)
	events := runAgent(t, m, mw)
	var eventChanges []plan.Change
	for _, ev := range events {
		if ev.Output != nil {
			if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok {
				eventChanges = append(eventChanges, c)
			}
		}
	}
	want := []struct {
		action   plan.Action
		revision int64
	}{{plan.ActionWrite, 1}, {plan.ActionStatus, 2}, {plan.ActionStep, 3}, {plan.ActionDelete, 3}}
	require.Len(t, hostChanges, len(want), "one change per successful mutation, none for failed ones")
	require.Equal(t, hostChanges, eventChanges, "the run's events carry the same changes")
	for i, w := range want {
		assert.Equal(t, "p", hostChanges[i].Name)
		assert.Equal(t, w.action, hostChanges[i].Action)
		assert.Equal(t, w.revision, hostChanges[i].Revision)
	}
	assert.True(t, hostChanges[0].Created)
	assert.Equal(t, 2, hostChanges[0].Progress.Total)
	assert.Equal(t, 1, hostChanges[2].Progress.Completed)
}

// A call whose context has ended answers canceled as a result, writes nothing and reports no
// change.
func TestCanceledContextWritesNothing(t *testing.T) {
	backend := plan.NewMemoryBackend()
	changes := 0
	mw, err := plan.New(context.Background(), &plan.Config{Backend: backend, OnChange: func(context.Context, plan.Change) { changes++ }})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	cancel()
	out, err := tools["write_plan"].InvokableRun(ctx, `{"name":"c","content":"x"}`)
	require.NoError(t, err, "a canceled call is a result, not a Go error")
	assert.Equal(t, "canceled", errorCode(t, out))
	assert.Zero(t, changes)
	store := storeOn(t, backend, "")
	_, err = store.Get(context.Background(), "c")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
}

// A Listing is its caller's own: editing a summary's steps or approval changes nothing the
// next List, another caller or an agent's digest reads.
func TestAListingIsItsCallersOwn(t *testing.T) {
	ctx := context.Background()
	s, _ := newStoreWith(t, plan.StoreConfig{}, "ship", "- [x] build\n- [ ] test\n- [ ] ship (after 1)\n")
	_, err := s.Approve(ctx, "ship", 1, "ana")
	require.NoError(t, err)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 2, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)

	for _, list := range []func() (*plan.Listing, error){
		func() (*plan.Listing, error) { return s.ListPage(ctx, plan.ListOptions{}) },
		func() (*plan.Listing, error) { return s.ListPage(ctx, plan.ListOptions{Limit: 1}) },
	} {
		l, err := list()
		require.NoError(t, err)
		require.Len(t, l.Plans, 1)
		got := l.Plans[0]
		require.NotNil(t, got.CurrentStep)
		require.NotNil(t, got.NextStep)
		require.NotNil(t, got.Approval)
		got.NextStep.Text = "FORGED: run deploy_prod"
		got.NextStep.After[0] = 99
		got.CurrentStep.Text = "FORGED too"
		got.Approval.By = "FORGED approver"
	}

	l, err := s.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	again := l.Plans[0]
	assert.Equal(t, "ship (after 1)", again.NextStep.Text)
	assert.Equal(t, []int{1}, again.NextStep.After)
	assert.NotContains(t, again.CurrentStep.Text, "FORGED")
	assert.Equal(t, "ana", again.Approval.By)

	mw, err := plan.New(ctx, &plan.Config{Store: s})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(plantest.Answer("ok"))
	runAgent(t, model, mw)
	system := model.Calls()[0].Input[0].Content
	assert.Contains(t, system, `"ship (after 1)"`, "the digest names the real next step")
	assert.NotContains(t, system, "FORGED")
}

// alwaysLoses is a driver.Swapper whose compare-and-swap never wins (another machine always
// writes first).
type alwaysLoses struct{ *plan.MemoryBackend }

func (alwaysLoses) CompareAndSwap(context.Context, *driver.WriteRequest, *string) (bool, error) {
	return false, nil
}

// A write that keeps losing its compare-and-swap fails with a message that names the plan, in
// English and in Chinese.
func TestContentionErrorNamesThePlan(t *testing.T) {
	ctx := context.Background()
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		mw, err := plan.New(ctx, &plan.Config{Backend: alwaysLoses{plan.NewMemoryBackend()}, Language: lang})
		require.NoError(t, err)
		model := plantest.NewScriptedModel(plantest.CallTool("write_plan", `{"name":"release","content":"- [ ] x\n"}`), plantest.Answer("ok"))
		results := toolResults(runAgent(t, model, mw))
		require.Len(t, results, 1)
		t.Log(results[0])
		assert.NotContains(t, results[0], `\"\"`, "the message names the plan")
		assert.Contains(t, results[0], "release")
	}
}

// currentRevision returns the current_revision of an error result, 0 when absent.
func currentRevision(t *testing.T, result string) int64 {
	t.Helper()
	var r struct {
		Error struct {
			CurrentRevision int64 `json:"current_revision"`
		} `json:"error"`
	}
	require.NoError(t, sonic.UnmarshalString(result, &r), result)
	return r.Error.CurrentRevision
}

// TestStaleWriterAfterDeleteAndRecreate: agent A reads revision 1 of a plan; agent B, with
// its own middleware on the same backend, deletes it and creates a new plan of that name.
// Every guarded change A then makes with revision 1 is a revision_conflict naming the new
// revision, never an overwrite of B's plan.
func TestStaleWriterAfterDeleteAndRecreate(t *testing.T) {
	for _, bc := range backendCases() {
		t.Run(bc.name, func(t *testing.T) {
			ctx := context.Background()
			backend, ws := bc.new(t)
			agent := func() map[string]tool.InvokableTool {
				mw, err := plan.New(ctx, &plan.Config{Backend: backend, Workspace: ws})
				require.NoError(t, err)
				_, _, tools := beforeAgentTools(t, ctx, mw)
				return tools
			}
			a, b := agent(), agent()
			call := func(tools map[string]tool.InvokableTool, name, args string) string {
				t.Helper()
				out, err := tools[name].InvokableRun(ctx, args)
				require.NoError(t, err)
				return out
			}
			ok := func(tools map[string]tool.InvokableTool, name, args string) {
				t.Helper()
				out := call(tools, name, args)
				require.Empty(t, errorCode(t, out), "%s %s: %s", name, args, out)
			}

			ok(a, "write_plan", `{"name":"shared","content":"# Old\n- [ ] a\n","last_known_revision":0}`)
			read := call(a, "read_plan", `{"name":"shared"}`)
			require.Contains(t, read, `"revision":1`)
			ok(a, "export_plan_to_file", `{"name":"shared","path":"/work/shared.md"}`)

			ok(b, "delete_plan", `{"name":"shared","last_known_revision":1}`)
			// Deleted and not yet re-created: the stale revision names a plan that is gone.
			out := call(a, "write_plan", `{"name":"shared","content":"stale","last_known_revision":1}`)
			require.Equal(t, "not_found", errorCode(t, out), out)

			ok(b, "write_plan", `{"name":"shared","content":"# New\n- [ ] b\n","last_known_revision":0}`)
			for _, c := range []struct{ tool, args string }{
				{"write_plan", `{"name":"shared","content":"stale","last_known_revision":1}`},
				{"set_plan_status", `{"name":"shared","status":"stale","last_known_revision":1}`},
				{"update_plan_step", `{"name":"shared","step":1,"status":"completed","last_known_revision":1}`},
				{"update_plan_from_file", `{"name":"shared","path":"/work/shared.md","last_known_revision":1}`},
				{"delete_plan", `{"name":"shared","last_known_revision":1}`},
			} {
				out := call(a, c.tool, c.args)
				assert.Equal(t, "revision_conflict", errorCode(t, out), "%s %s: %s", c.tool, c.args, out)
				assert.EqualValues(t, 2, currentRevision(t, out), out)
			}

			// A second delete and re-create, this time unguarded: still no revision repeats.
			ok(b, "delete_plan", `{"name":"shared"}`)
			ok(b, "write_plan", `{"name":"shared","content":"# Newer\n"}`)
			for _, stale := range []string{"1", "2"} {
				out := call(a, "write_plan", `{"name":"shared","content":"stale","last_known_revision":`+stale+`}`)
				assert.Equal(t, "revision_conflict", errorCode(t, out), out)
				assert.EqualValues(t, 3, currentRevision(t, out), out)
			}

			store := storeOn(t, backend, "")
			p, err := store.Get(ctx, "shared")
			require.NoError(t, err)
			assert.EqualValues(t, 3, p.Revision)
			assert.Equal(t, "# Newer\n", p.Content)
			assert.Equal(t, "draft", p.Status)
		})
	}
}

// hooked holds a map, so a struct value holding it is not comparable.
type hooked struct {
	plan.Backend
	hooks map[string]func()
}

type valueWrap struct{ hooked }

func storeOn(t testing.TB, b plan.Backend, dir string) *plan.Store {
	t.Helper()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: dir})
	require.NoError(t, err)
	return s
}

// A Backend value that is not comparable is accepted without a panic by NewStore and New;
// sharing it is then explicit, one Store passed to every middleware.
func TestUnhashableBackendValueDoesNotPanic(t *testing.T) {
	b := valueWrap{hooked{Backend: plan.NewMemoryBackend(), hooks: map[string]func(){"x": func() {}}}}
	require.NotPanics(t, func() {
		s := storeOn(t, b, "")
		_, err := s.Put(context.Background(), plan.Update{Name: "a", Content: ptr("- [ ] x\n")})
		require.NoError(t, err)
		_, err = plan.New(context.Background(), &plan.Config{Backend: b})
		require.NoError(t, err)
	})
	// Sharing is then explicit: one Store for every middleware.
	s := storeOn(t, b, "")
	_, err := plan.New(context.Background(), &plan.Config{Store: s})
	require.NoError(t, err)
	_, err = plan.New(context.Background(), &plan.Config{Store: s, Backend: b})
	require.ErrorContains(t, err, "leave Backend")
}

func newLocal(t testing.TB, root string) *plan.LocalBackend {
	t.Helper()
	b, err := plan.NewLocalBackend(root)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

// LocalBackend passes the Backend conformance suite.
func TestLocalBackendConformance(t *testing.T) {
	backendtest.RunBackendSuite(t, func(t *testing.T) plan.Backend { return newLocal(t, t.TempDir()) })
}

// TestInvalidUTF8IsRefusedOnWrite: invalid UTF-8 in the body, in the body's first heading
// (the default title), in a note, a title, a status or an author is refused with
// invalid_argument naming the field, and nothing is written.
func TestInvalidUTF8IsRefusedOnWrite(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	body := "# Release\n- [ ] tag\n- [ ] ship\n"
	invoke(t, ctx, tools, plan.ToolWritePlan, `{"name":"release","content":`+quote(body)+`}`)

	for _, c := range []struct{ tool, args, field string }{
		{plan.ToolWritePlan, "{\"name\":\"fresh\",\"content\":\"body \xff\\n\"}", "content"},
		{plan.ToolWritePlan, "{\"name\":\"fresh\",\"content\":\"# T\xc3\\n- [ ] a\\n\"}", "content"},
		{plan.ToolWritePlan, "{\"name\":\"release\",\"content\":\"# T\\n\",\"title\":\"Re\xfflease\"}", "title"},
		{plan.ToolWritePlan, "{\"name\":\"release\",\"content\":\"# T\\n\",\"status\":\"\xe2\x82\"}", "status"},
		{plan.ToolWritePlan, "{\"name\":\"release\",\"content\":\"# T\\n\",\"author\":\"\xc0\x80\"}", "author"},
		{plan.ToolSetPlanStatus, "{\"name\":\"release\",\"status\":\"do\xffne\"}", "status"},
		{plan.ToolUpdatePlanStep, "{\"name\":\"release\",\"step\":1,\"status\":\"completed\",\"note\":\"PR \xff\"}", "note"},
	} {
		out := invoke(t, ctx, tools, c.tool, c.args)
		r := decode[errorOut](t, out)
		if assert.NotNil(t, r.Error, "%s %q: %s", c.tool, c.args, out) {
			assert.Equal(t, plan.CodeInvalidArgument, r.Error.Code, out)
			assert.True(t, strings.HasPrefix(r.Error.Message, c.field+" "), "the message names %s: %s", c.field, out)
		}
	}
	store := storeOn(t, backend, "")
	_, err = store.Get(ctx, "fresh")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.EqualValues(t, 1, p.Revision)
	assert.Equal(t, body, p.Content)
	assert.Equal(t, "Release", p.Title)
	assert.Equal(t, "draft", p.Status)
}

// TestHandEditedInvalidUTF8IsRepaired: a plan file a person saved with invalid UTF-8 reads
// with U+FFFD and "repaired":true; every result about it is valid UTF-8 JSON; the next
// write stores the repair, and what it answers is what a later read returns.
func TestHandEditedInvalidUTF8IsRepaired(t *testing.T) {
	for _, bc := range backendCases() {
		t.Run(bc.name, func(t *testing.T) {
			backend, _ := bc.new(t)
			testHandEditedInvalidUTF8(t, backend)
		})
	}
}

func testHandEditedInvalidUTF8(t *testing.T, backend plan.Backend) {
	ctx := context.Background()
	raw := "---\ntitle: \"Rel\xffease\"\nstatus: \"in\xc3 progress\"\nauthor: \"b\xe2\x82ob\"\nrevision: 2\n" +
		"updated_at: \"2026-11-21T22:00:00Z\"\n---\n# Rel\xffease\n- [x] tag \xff\n- [ ] sh\xc3ip\n- [ ] announce\n"
	require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/release.md", Content: raw}))
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)

	type readOut struct {
		Title       string `json:"title"`
		Status      string `json:"status"`
		Author      string `json:"author"`
		Revision    int64  `json:"revision"`
		Repaired    bool   `json:"repaired"`
		Content     string `json:"content"`
		CurrentStep *struct {
			Number int    `json:"number"`
			Text   string `json:"text"`
		} `json:"current_step"`
	}
	read := decode[readOut](t, invoke(t, ctx, tools, plan.ToolReadPlan, `{"name":"release"}`))
	assert.True(t, read.Repaired)
	assert.Equal(t, "Rel\uFFFDease", read.Title)
	assert.Equal(t, "in\uFFFD progress", read.Status)
	assert.Equal(t, "b\uFFFDob", read.Author)
	assert.Equal(t, "# Rel\uFFFDease\n- [x] tag \uFFFD\n- [ ] sh\uFFFDip\n- [ ] announce\n", read.Content)
	require.NotNil(t, read.CurrentStep)
	assert.Equal(t, "sh\uFFFDip", read.CurrentStep.Text)

	list := decode[struct {
		Plans []struct {
			Name     string `json:"name"`
			Title    string `json:"title"`
			Repaired bool   `json:"repaired"`
		} `json:"plans"`
	}](t, invoke(t, ctx, tools, plan.ToolListPlans, `{}`))
	require.Len(t, list.Plans, 1)
	assert.Equal(t, "Rel\uFFFDease", list.Plans[0].Title)
	assert.True(t, list.Plans[0].Repaired)

	status := decode[readOut](t, invoke(t, ctx, tools, plan.ToolGetPlanStatus, `{"name":"release"}`))
	assert.Equal(t, "in\uFFFD progress", status.Status)
	next := decode[struct {
		NextStep *struct {
			Text string `json:"text"`
		} `json:"next_step"`
	}](t, invoke(t, ctx, tools, plan.ToolGetPlanStatus, `{"name":"release"}`))
	require.NotNil(t, next.NextStep)
	assert.Equal(t, "sh\uFFFDip", next.NextStep.Text)

	step := decode[struct {
		Revision int64 `json:"revision"`
		Step     int   `json:"step"`
	}](t, invoke(t, ctx, tools, plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"in_progress"}`))
	assert.EqualValues(t, 3, step.Revision)
	assert.Equal(t, 2, step.Step, "the repaired step moves")

	// The write stored the repair: the file is valid UTF-8 and no longer flagged.
	fc, err := backend.Read(ctx, &driver.ReadRequest{FilePath: "/plans/release.md", Offset: 1, Limit: 1000})
	require.NoError(t, err)
	assert.True(t, utf8.ValidString(fc.Content), fc.Content)
	read = decode[readOut](t, invoke(t, ctx, tools, plan.ToolReadPlan, `{"name":"release"}`))
	assert.False(t, read.Repaired)
	assert.Equal(t, "Rel\uFFFDease", read.Title)
	assert.Equal(t, "# Rel\uFFFDease\n- [x] tag \uFFFD\n- [~] sh\uFFFDip\n- [ ] announce\n", read.Content)

	// What a write answers is what a later read returns, for a default title cut from a long
	// multi-byte heading too.
	heading := strings.Repeat("é", 700) // 1,400 bytes: cut to at most 1,024 at a rune boundary
	for _, args := range []string{
		`{"name":"release","content":"# New\n- [ ] a\n"}`,
		`{"name":"long","content":` + quote("# "+heading+"\n- [ ] a\n") + `}`,
	} {
		w := decode[readOut](t, invoke(t, ctx, tools, plan.ToolWritePlan, args))
		name := decode[struct {
			Name string `json:"name"`
		}](t, args).Name
		r := decode[readOut](t, invoke(t, ctx, tools, plan.ToolReadPlan, `{"name":"`+name+`"}`))
		assert.Equal(t, r.Title, w.Title, name)
		assert.Equal(t, r.Revision, w.Revision, name)
		assert.True(t, utf8.ValidString(w.Title))
		assert.LessOrEqual(t, len(w.Title), 1024)
	}
}
