package plan_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

const graphBody = `# Ship
- [ ] Build
- [ ] Test (after 1)
- [ ] Docs
- [ ] Deploy (after 2, 3)
`

func newGraphStore(t *testing.T, cfg plan.StoreConfig) *plan.Store {
	t.Helper()
	s, _ := newStoreWith(t, cfg, "ship", graphBody)
	return s
}

func graphMove(s *plan.Store, by string, step int, to plan.StepState) (plan.Step, *plan.Error) {
	_, st, err := s.MoveStep(context.Background(), plan.StepMove{Name: "ship", Step: step, State: to, By: by})
	if err == nil {
		return st, nil
	}
	var pe *plan.Error
	if !errors.As(err, &pe) {
		pe = &plan.Error{Code: "not_an_error", Message: err.Error()}
	}
	return plan.Step{}, pe
}

// "(after 2, 3)" at the end of a step's text, before any holder tag, lists the steps it waits
// for; the text stays as written.
func TestAfterIsReadFromTheStepText(t *testing.T) {
	steps := plan.ParseSteps("- [ ] a\n- [ ] b\n- [~] Deploy (after 2, 1) (@w1)\n- [x] d (after 3) — shipped it\n- [ ] e (after 1) and more\n")
	require.Len(t, steps, 5)
	assert.Nil(t, steps[0].After)
	assert.Equal(t, []int{1, 2}, steps[2].After)
	assert.Equal(t, "Deploy (after 2, 1) (@w1)", steps[2].Text)
	assert.Equal(t, "w1", steps[2].Holder)
	assert.Equal(t, []int{3}, steps[3].After, "a note a move appended follows the step's own text")
	assert.Nil(t, steps[4].After, "only an (after …) that ends the text counts")
	done := plan.ParseSteps("- [x] f (after 1) (@w1) — shipped\n- [x] g (after 1) (@w1) — a — b\n")
	assert.Equal(t, []int{1}, done[0].After, "a holder's tag before the note")
	assert.Equal(t, []int{1}, done[1].After)
}

// A write naming a step the plan does not have, or whose steps wait for each other in a
// cycle, is refused with invalid_argument naming the steps, and nothing is written.
func TestAWriteWithAnUnknownPrerequisiteOrACycleIsRefused(t *testing.T) {
	s := newGraphStore(t, plan.StoreConfig{})
	ctx := context.Background()
	for _, tc := range []struct {
		body  string
		waits []int
		step  int
	}{
		{"- [ ] a\n- [ ] b (after 7)\n", []int{7}, 2},
		{"- [ ] a (after 3)\n- [ ] b (after 1)\n- [ ] c (after 2)\n", []int{1, 3, 2}, 1},
		{"- [ ] a\n- [ ] b (after 2)\n", []int{2}, 2},
	} {
		body := tc.body
		_, err := s.Put(ctx, plan.Update{Name: "ship", Content: &body})
		var pe *plan.Error
		require.True(t, errors.As(err, &pe), "%v", err)
		assert.Equal(t, plan.CodeInvalidArgument, pe.Code)
		assert.Equal(t, tc.waits, pe.Waits, pe.Message)
		assert.Equal(t, tc.step, pe.Step, pe.Message)
		_, err = s.Put(ctx, plan.Update{Name: "fresh", Content: &body})
		require.Error(t, err, "a create is refused too")
	}
	p, err := s.Get(ctx, "ship")
	require.NoError(t, err)
	assert.Equal(t, int64(1), p.Revision, "nothing was written")
	assert.Equal(t, graphBody, p.Content)
	_, err = s.Get(ctx, "fresh")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
}

// A step is started or finished only once every step it waits for is completed or skipped;
// a failed prerequisite blocks it. The next free step is the first ready one.
func TestAStepStartsOnlyAfterItsPrerequisites(t *testing.T) {
	s := newGraphStore(t, plan.StoreConfig{})
	_, perr := graphMove(s, "w1", 4, plan.StepInProgress)
	require.NotNil(t, perr)
	assert.Equal(t, plan.CodeStepBlocked, perr.Code)
	assert.Equal(t, []int{2, 3}, perr.Waits)
	assert.Contains(t, perr.Message, "2, 3")
	_, perr = graphMove(s, "w1", 2, plan.StepCompleted)
	require.NotNil(t, perr)
	assert.Equal(t, plan.CodeStepBlocked, perr.Code)

	st, perr := graphMove(s, "w1", 0, plan.StepInProgress)
	require.Nil(t, perr)
	assert.Equal(t, 1, st.Number)
	st, perr = graphMove(s, "w2", 0, plan.StepInProgress)
	require.Nil(t, perr)
	assert.Equal(t, 3, st.Number, "step 2 waits for step 1")
	_, perr = graphMove(s, "w3", 0, plan.StepInProgress)
	require.NotNil(t, perr)
	assert.Equal(t, plan.CodeStepBlocked, perr.Code, "pending steps remain but none is ready")
	assert.Equal(t, []int{1, 3}, perr.Waits, "the held steps everything waits for, not pending step 2 between")

	_, perr = graphMove(s, "w1", 1, plan.StepFailed)
	require.Nil(t, perr)
	_, perr = graphMove(s, "w1", 2, plan.StepInProgress)
	require.NotNil(t, perr, "a failed prerequisite blocks")
	assert.Equal(t, plan.CodeStepBlocked, perr.Code)

	p, err := s.Get(context.Background(), "ship")
	require.NoError(t, err)
	sum := plan.Summarize(p)
	require.NotNil(t, sum.CurrentStep)
	assert.Equal(t, 3, sum.CurrentStep.Number)
	assert.Nil(t, sum.NextStep, "no pending step is ready")

	_, perr = graphMove(s, "w2", 3, plan.StepCompleted)
	require.Nil(t, perr)
	body := "# Ship\n- [-] Build\n- [ ] Test (after 1)\n- [x] Docs\n- [ ] Deploy (after 2, 3)\n"
	_, err = s.Put(context.Background(), plan.Update{Name: "ship", Content: &body})
	require.NoError(t, err, "replanned: the failed step skipped")
	st, perr = graphMove(s, "w1", 0, plan.StepInProgress)
	require.Nil(t, perr)
	assert.Equal(t, 2, st.Number)
	_, perr = graphMove(s, "w1", 2, plan.StepCompleted)
	require.Nil(t, perr)
	st, perr = graphMove(s, "w1", 0, plan.StepInProgress)
	require.Nil(t, perr)
	assert.Equal(t, 4, st.Number)
	_, perr = graphMove(s, "w1", 4, plan.StepCompleted)
	require.Nil(t, perr)
	_, perr = graphMove(s, "w1", 0, plan.StepInProgress)
	require.NotNil(t, perr)
	assert.Equal(t, plan.CodeIllegalTransition, perr.Code, "no pending step remains")
}

// When no pending step of a long plan is ready, the answer names the held steps that hold
// A held step whose prerequisites a rewrite renumbered onto an unfinished step can still
// be renewed by its holder and released or handed over by the host: moving a step in
// progress to in_progress starts nothing.
func TestAHoldOutlivesARewriteThatRenumbersItsPrerequisites(t *testing.T) {
	ctx := context.Background()
	s, _ := newStoreWith(t, plan.StoreConfig{HoldTTL: time.Hour}, "p", "# P\n- [ ] build\n- [ ] test (after 1)\n")
	_, _, err := s.MoveStep(ctx, plan.StepMove{Name: "p", Step: 1, State: plan.StepCompleted, By: "w1"})
	require.NoError(t, err)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "p", Step: 2, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)

	p, err := s.Get(ctx, "p")
	require.NoError(t, err)
	rewritten := "# P\n- [ ] prepare\n" + strings.TrimPrefix(p.Content, "# P\n")
	_, err = s.Put(plan.WithActor(ctx, "planner"), plan.Update{Name: "p", Content: &rewritten})
	require.NoError(t, err)
	p, err = s.Get(ctx, "p")
	require.NoError(t, err)
	require.Equal(t, "w1", plan.ParseSteps(p.Content)[2].Holder)

	_, st, err := s.MoveStep(ctx, plan.StepMove{Name: "p", Step: 3, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err, "the holder renews its hold")
	assert.Equal(t, "w1", st.Holder)
	_, st, err = s.MoveStep(plan.WithActor(ctx, "ana"), plan.StepMove{Name: "p", Step: 3, State: plan.StepInProgress, By: "w2", Takeover: true})
	require.NoError(t, err, "the host hands it over")
	assert.Equal(t, "w2", st.Holder)
	_, st, err = s.MoveStep(plan.WithActor(ctx, "ana"), plan.StepMove{Name: "p", Step: 3, State: plan.StepInProgress, By: "", Takeover: true})
	require.NoError(t, err, "the host releases it")
	assert.Empty(t, st.Holder)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "p", Step: 3, State: plan.StepCompleted, By: "w2"})
	assert.Equal(t, plan.CodeStepBlocked, plan.CodeOf(err), "finishing it still waits for what it waits for")
}

// everything up, at most 8 of them, whatever the plan's length: never every unfinished step.
func TestNoReadyStepNamesAFewHeldStepsWhateverThePlansLength(t *testing.T) {
	for _, steps := range []int{60, 1000} {
		var b strings.Builder
		for i := 1; i <= steps; i++ {
			fmt.Fprintf(&b, "- [ ] step %d", i)
			if i > 20 {
				fmt.Fprintf(&b, " (after %d)", i-20)
			}
			b.WriteString("\n")
		}
		body := b.String()
		s := newGraphStore(t, plan.StoreConfig{})
		_, err := s.Put(context.Background(), plan.Update{Name: "long", Content: &body})
		require.NoError(t, err)
		for range 20 {
			_, _, err := s.MoveStep(plan.WithActor(context.Background(), "w"), plan.StepMove{Name: "long", State: plan.StepInProgress})
			require.NoError(t, err)
		}
		_, _, err = s.MoveStep(plan.WithActor(context.Background(), "late"), plan.StepMove{Name: "long", State: plan.StepInProgress})
		var perr *plan.Error
		require.ErrorAs(t, err, &perr)
		assert.Equal(t, plan.CodeStepBlocked, perr.Code)
		assert.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8}, perr.Waits, "%d steps", steps)
		assert.Less(t, len(perr.Message), 200, "%d steps: %s", steps, perr.Message)
	}
}

// Through a real agent: a cycle and an unknown prerequisite are structured errors the run
// goes on after; a blocked step's error names what it waits for and the ready next_step.
func TestAnAgentIsToldWhatABlockedStepWaitsFor(t *testing.T) {
	s := newGraphStore(t, plan.StoreConfig{})
	mw, err := plan.New(context.Background(), &plan.Config{Store: s, AgentName: "w1"})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"ship","content":"- [ ] a (after 2)\n- [ ] b (after 1)\n"}`),
		plantest.CallTool("write_plan", `{"name":"ship","content":"- [ ] a\n- [ ] b (after 9)\n"}`),
		plantest.CallTool("update_plan_step", `{"name":"ship","step":4,"status":"in_progress"}`),
		plantest.CallTool("update_plan_step", `{"name":"ship","status":"in_progress"}`),
		plantest.Answer("done"),
	)
	results := graphRun(t, m, mw)
	require.Len(t, results, 4)
	assert.Equal(t, "invalid_argument", plantest.ErrorCode(t, results[0]), results[0])
	assert.Contains(t, results[0], "1, 2")
	assert.Equal(t, "invalid_argument", plantest.ErrorCode(t, results[1]), results[1])
	assert.Contains(t, results[1], "9")
	assert.Equal(t, "step_blocked", plantest.ErrorCode(t, results[2]), results[2])
	assert.Contains(t, results[2], `"waits":[2,3]`)
	assert.Contains(t, results[2], `"next_step":{"number":1`)
	assert.Equal(t, "", plantest.ErrorCode(t, results[3]), results[3])
	assert.Contains(t, results[3], `"step":1`)
}

// A move's note never changes what a step waits for: one that ends like "(after N)", or
// would once a later note follows it, is refused in the agent's language and nothing is
// written; the step's own "(after …)" stays in force under notes that do not.
func TestANoteNeverChangesWhatAStepWaitsFor(t *testing.T) {
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		s := newGraphStore(t, plan.StoreConfig{})
		mw, err := plan.New(context.Background(), &plan.Config{Store: s, AgentName: "w1", Language: lang})
		require.NoError(t, err)
		m := plantest.NewScriptedModel(
			plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"in_progress","note":"blocked until the deploy window (after 4)"}`),
			plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"in_progress","note":"waiting (after 2) — for now"}`),
			plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"in_progress","note":"on it"}`),
			plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"completed"}`),
			plantest.CallTool("update_plan_step", `{"name":"ship","step":2,"status":"in_progress","note":"as planned (after 1)"}`),
			plantest.Answer("done"),
		)
		results := graphRun(t, m, mw)
		require.Len(t, results, 5)
		for i, want := range []string{"invalid_argument", "invalid_argument", "", "", ""} {
			assert.Equal(t, want, plantest.ErrorCode(t, results[i]), "lang %v, call %d: %s", lang, i+1, results[i])
		}
		for _, r := range results[:2] {
			if lang == adk.LanguageChinese {
				assert.Contains(t, r, "所依赖的步骤")
			} else {
				assert.Contains(t, r, "which steps step 1 waits for")
			}
		}
		p, err := s.Get(context.Background(), "ship")
		require.NoError(t, err)
		assert.Equal(t, int64(4), p.Revision, "the refused moves wrote nothing")
		_, st, err := s.MoveStep(context.Background(), plan.StepMove{Name: "ship", Step: 2, State: plan.StepCompleted, By: "w1", Note: "tested on staging"})
		require.NoError(t, err, "a claimed step that waits for another is finished with a note")
		assert.Equal(t, []int{1}, st.After)
		p, err = s.Get(context.Background(), "ship")
		require.NoError(t, err)
		steps := plan.ParseSteps(p.Content)
		assert.Nil(t, steps[0].After)
		assert.Equal(t, []int{1}, steps[1].After, "a note repeating the step's own prerequisites is no change")
	}
}

func graphRun(t *testing.T, m *plantest.ScriptedModel, handlers ...adk.ChatModelAgentMiddleware) []string {
	t.Helper()
	ctx := context.Background()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "w1", Description: "works", Instruction: "You work.", Model: m,
		Handlers: handlers, MaxIterations: 50,
	})
	require.NoError(t, err)
	return plantest.RunAgent(t, ctx, agent, "go")
}

// The digest in the instruction names the first ready step as next, never a blocked one,
// and get_plan_status does the same.
func TestTheDigestNamesTheFirstReadyStep(t *testing.T) {
	s := newGraphStore(t, plan.StoreConfig{})
	_, perr := graphMove(s, "w9", 1, plan.StepInProgress)
	require.Nil(t, perr)
	mw, err := plan.New(context.Background(), &plan.Config{Store: s, AgentName: "w1"})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(
		plantest.CallTool("get_plan_status", `{"name":"ship"}`),
		plantest.Answer("done"),
	)
	results := graphRun(t, m, mw)
	require.Len(t, results, 1)
	assert.Contains(t, results[0], `"next_step":{"number":3,"text":"Docs"}`)
	system := m.Calls()[0].Input[0]
	assert.Contains(t, system.Content, `#3 "Docs"`)
	assert.NotContains(t, system.Content, `#2 "Test (after 1)"`)
}

// graphWorker is a scripted worker that takes the next free step of plan name, finishes it,
// and takes the next, waiting a little while every pending step is blocked, until no
// pending step remains.
func graphWorker(name string) plantest.Turn {
	return func(in []*schema.Message) *schema.Message {
		call := func(args string) *schema.Message {
			return plantest.CallTool("update_plan_step", args)(in)
		}
		take := call(`{"name":"` + name + `","status":"in_progress"}`)
		at := len(in) - 1
		if in[at].Role == schema.User && at > 0 && in[at-1].Role == schema.Tool {
			at-- // a reminder follows the results
		}
		if in[at].Role != schema.Tool || at == 0 || len(in[at-1].ToolCalls) == 0 {
			return take
		}
		var r struct {
			Step  int `json:"step"`
			Error *struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(in[at].Content), &r) != nil {
			return schema.AssistantMessage("unreadable result", nil)
		}
		took := strings.Contains(in[at-1].ToolCalls[0].Function.Arguments, `"in_progress"`) // the call answered was a take
		switch {
		case r.Error != nil && r.Error.Code == "step_blocked":
			time.Sleep(10 * time.Millisecond)
			return take
		case r.Error != nil:
			return schema.AssistantMessage("no more steps: "+r.Error.Code, nil)
		case took:
			return call(fmt.Sprintf(`{"name":%q,"step":%d,"status":"completed"}`, name, r.Step))
		}
		return take
	}
}

// checkHistory verifies, over every revision of plan name, that no step was in progress or
// completed while a step it waits for was not done, and that each step became completed
// exactly once; and that revision = 1 + the number of changes.
func checkHistory(t *testing.T, s *plan.Store, name string) {
	t.Helper()
	ctx := context.Background()
	cur, err := s.Get(ctx, name)
	require.NoError(t, err)
	completed := map[int]int{}
	var prev []plan.Step
	for rev := int64(1); rev <= cur.Revision; rev++ {
		p, err := s.GetRevision(ctx, name, rev)
		require.NoError(t, err, "revision %d is kept", rev)
		steps := plan.ParseSteps(p.Content)
		for _, st := range steps {
			if st.State == plan.StepInProgress || st.State == plan.StepCompleted {
				for _, n := range st.After {
					require.Equal(t, plan.StepCompleted, steps[n-1].State, "r%d: step %d is %s before step %d is done", rev, st.Number, st.State, n)
				}
			}
			if st.State == plan.StepCompleted && (prev == nil || prev[st.Number-1].State != plan.StepCompleted) {
				completed[st.Number]++
			}
		}
		prev = steps
	}
	for _, st := range plan.ParseSteps(cur.Content) {
		assert.Equal(t, plan.StepCompleted, st.State, "step %d", st.Number)
		assert.Equal(t, 1, completed[st.Number], "step %d done exactly once", st.Number)
	}
}

// A deep agent's two workers, started at once on a plan with prerequisites, take each step
// only once it is ready and finish every step exactly once.
func TestDeepAgentWorkersTakeStepsOnlyWhenReady(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Store: storeOf(t, plan.StoreConfig{Backend: backend, HistoryLimit: 100})})
	require.NoError(t, err)
	body := "# Release\n- [ ] design\n- [ ] build (after 1)\n- [ ] docs\n- [ ] test (after 2)\n- [ ] release (after 3, 4)\n"
	worker := func(name string) adk.Agent {
		turns := make([]plantest.Turn, 400)
		for i := range turns {
			turns[i] = graphWorker("release")
		}
		sub, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: name, Description: "executes plan steps",
			Instruction: "You execute steps.", Model: plantest.NewScriptedModel(turns...), Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 400})
		require.NoError(t, err)
		return sub
	}
	content, _ := json.Marshal(body)
	task := func(who string) plantest.ToolCall {
		return plantest.ToolCall{Name: "task", Arguments: `{"subagent_type":"` + who + `","description":"work on plan release"}`}
	}
	lead := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"release","content":`+string(content)+`,"last_known_revision":0}`),
		plantest.CallTools(task("worker-a"), task("worker-b")),
		plantest.Answer("released"),
	)
	agent, err := deep.New(ctx, &deep.Config{Name: "lead", Description: "orchestrator", ChatModel: lead,
		SubAgents: []adk.Agent{worker("worker-a"), worker("worker-b")},
		Handlers:  []adk.ChatModelAgentMiddleware{mw}, WithoutWriteTodos: true, MaxIteration: 400})
	require.NoError(t, err)
	drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "release it"))
	s, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HistoryLimit: 100})
	require.NoError(t, err)
	checkHistory(t, s, "release")
	revs, err := s.History(ctx, "release")
	require.NoError(t, err)
	by := map[string]int{}
	for _, r := range revs {
		by[r.Author]++
	}
	assert.Equal(t, 10, by["worker-a"]+by["worker-b"], "5 starts and 5 finishes: %v", by)
}

// randomGraph is a plan of n steps, each waiting for up to three earlier ones.
func randomGraph(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("# Graph\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] step %d", i)
		var after []string
		for range rng.IntN(4) {
			if i > 1 {
				after = append(after, fmt.Sprint(1+rng.IntN(i-1)))
			}
		}
		if len(after) > 0 {
			fmt.Fprintf(&b, " (after %s)", strings.Join(after, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Over seeded interleavings of K workers on random graphs (each worker taking the next free
// step without a number, or finishing the one it holds, in an order the seed picks, some
// at once): no step starts before its prerequisites are done, every step ends done exactly
// once, and the revision is 1 + the successful changes.
func TestInterleavedWorkersOnRandomGraphs(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 26))
			n, k := 5+rng.IntN(20), 2+rng.IntN(4)
			s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend(), HistoryLimit: 1000})
			require.NoError(t, err)
			body := randomGraph(rng, n)
			_, err = s.Put(context.Background(), plan.Update{Name: "g", Content: &body})
			require.NoError(t, err)
			var mu sync.Mutex
			changes := 0
			holding := make([]int, k)
			done := false
			for rounds := 0; !done && rounds < 100*n; rounds++ {
				// A few workers act at once, in goroutines; the rest wait their turn.
				var wg sync.WaitGroup
				for w := range k {
					if rng.IntN(2) == 0 {
						continue
					}
					wg.Add(1)
					go func(w int) {
						defer wg.Done()
						by := fmt.Sprint("w", w)
						m := plan.StepMove{Name: "g", State: plan.StepInProgress, By: by}
						if holding[w] != 0 {
							m.Step, m.State = holding[w], plan.StepCompleted
						}
						p, st, err := s.MoveStep(context.Background(), m)
						mu.Lock()
						defer mu.Unlock()
						switch {
						case err == nil:
							changes++
							if m.State == plan.StepInProgress {
								steps := plan.ParseSteps(p.Content)
								for _, a := range st.After {
									assert.Equal(t, plan.StepCompleted, steps[a-1].State, "step %d started before %d", st.Number, a)
								}
								holding[w] = st.Number
							} else {
								holding[w] = 0
							}
						case plan.CodeOf(err) == plan.CodeIllegalTransition:
							done = done || holding[w] == 0
						default:
							assert.Equal(t, plan.CodeStepBlocked, plan.CodeOf(err), "%v", err)
						}
					}(w)
				}
				wg.Wait()
				mu.Lock()
				for _, h := range holding {
					done = done && h == 0
				}
				mu.Unlock()
			}
			p, err := s.Get(context.Background(), "g")
			require.NoError(t, err)
			assert.Equal(t, int64(1+changes), p.Revision, "revision = 1 + successful changes")
			checkHistory(t, s, "g")
		})
	}
}
