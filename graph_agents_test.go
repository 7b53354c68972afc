package plan_test

import (
	"context"
	"encoding/json"
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

// graphWorker is a scripted worker that takes the next free step of plan name, finishes it,
// and takes the next, waiting a little while every pending step is blocked, until no
// pending step remains.
func graphWorker(name string) plantest.Turn {
	return func(in []*schema.Message) *schema.Message {
		call := func(args string) *schema.Message {
			return plantest.CallTool("update_plan_step", args)(in)
		}
		take := call(`{"name":"` + name + `","status":"in_progress"}`)
		last := in[len(in)-1]
		if last.Role == schema.User && len(in) > 1 && in[len(in)-2].Role == schema.Tool {
			last = in[len(in)-2] // a reminder follows the results
		}
		if last.Role != schema.Tool {
			return take
		}
		var r struct {
			Step   int    `json:"step"`
			Holder string `json:"holder"` // only on a step held in progress
			Error  *struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(last.Content), &r) != nil {
			return schema.AssistantMessage("unreadable result", nil)
		}
		switch {
		case r.Error != nil && r.Error.Code == "step_blocked":
			time.Sleep(10 * time.Millisecond)
			return take
		case r.Error != nil:
			return schema.AssistantMessage("no more steps: "+r.Error.Code, nil)
		case r.Holder != "":
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
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "release it")
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		require.NoError(t, ev.Err)
	}
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
