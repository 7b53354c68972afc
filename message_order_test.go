package plan_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// holdUp is another handler of the agent: it holds a call of one of its tools back before
// passing it on, so that Eino's parallel run of a message's calls would let a later call
// overtake it; refuse answers those calls itself instead.
type holdUp struct {
	*adk.BaseChatModelAgentMiddleware
	tools  map[string]bool
	delay  time.Duration
	refuse bool
}

func (h *holdUp) WrapInvokableToolCall(_ context.Context, endpoint adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	if !h.tools[tc.Name] {
		return endpoint, nil
	}
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		if h.refuse {
			return "refused by policy", nil
		}
		time.Sleep(h.delay)
		return endpoint(ctx, args, opts...)
	}, nil
}

// orderAgent runs one message of calls through an agent that gates deploy_prod, with outer
// in front of the plan middleware, and returns what the gate heard and how often
// deploy_prod ran. The worker holds step 1 of release when the message comes. Run i varies
// the other options: the lean worker, evidence required, a budget on the plan.
func orderAgent(t *testing.T, i int, body string, outer *holdUp, message plantest.Turn) ([]plan.GatedCall, int32, *plan.Store) {
	t.Helper()
	ctx := context.Background()
	if i%4 == 3 {
		body = strings.ReplaceAll(body, "(uses deploy_prod)\n", "(uses deploy_prod) (budget 900k tokens)\n")
	}
	backend := approvedPlans(t, map[string]string{"release": body})
	var log gateLog
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: "worker", GatedTools: []string{"deploy_prod"}, OnGatedCall: log.hear,
		LeanWorker: i%2 == 1, RequireEvidence: i%3 == 2})
	require.NoError(t, err)
	deploys := newSideEffect("deploy_prod", "target")
	model := plantest.NewScriptedModel(takeStep("release", 1), message, plantest.Answer("done"))
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "works",
		Instruction: "You work.", Model: model, Handlers: []adk.ChatModelAgentMiddleware{outer, mw}, MaxIterations: 10,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{deploys}}}})
	require.NoError(t, err)
	gateEvents(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "ship it"))
	return log.calls(), deploys.ran.Load(), storeOn(t, backend, "")
}

func moveStep(step int, status string) plantest.ToolCall {
	evidence := ""
	if status == "completed" {
		evidence = `,"evidence":"built and deployed, smoke tests pass"`
	}
	return plantest.ToolCall{Name: "update_plan_step", Arguments: `{"name":"release","step":` + strconv.Itoa(step) + `,"status":"` + status + `"` + evidence + `}`}
}

var deployCall = plantest.ToolCall{Name: "deploy_prod", Arguments: `{"target":"prod"}`}

// A message listing [finish step 1, take step 2, deploy_prod], or [finish step 1 with next,
// deploy_prod], runs deploy_prod under step 2, which names it, however long the plan calls take to reach the middleware; a message listing
// [deploy_prod, finish step 1] runs deploy_prod under step 1 before the step is finished.
// Eino runs the calls of a message at once: without the order, the gate would judge
// deploy_prod under the step held when the message came.
func TestCallsOfOneMessageTakeEffectInTheOrderListed(t *testing.T) {
	t.Run("a plan call before a work call", func(t *testing.T) {
		body := "# Release\n- [ ] Build the release\n- [ ] Deploy to production (uses deploy_prod)\n"
		for i := range 50 {
			outer := &holdUp{tools: map[string]bool{"update_plan_step": true}, delay: time.Duration(i%3+1) * time.Millisecond}
			heard, ran, _ := orderAgent(t, i, body, outer, plantest.CallTools(moveStep(1, "completed"), moveStep(2, "in_progress"), deployCall))
			require.Len(t, heard, 1, "run %d: %+v", i, heard)
			require.True(t, heard[0].Allowed, "run %d: deploy_prod ran under the step just taken: %+v", i, heard[0])
			require.Equal(t, 2, heard[0].Step, "run %d", i)
			require.Equal(t, int32(1), ran, "run %d", i)
		}
	})
	t.Run("a completion with next before a work call", func(t *testing.T) {
		body := "# Release\n- [ ] Build the release\n- [ ] Deploy to production (uses deploy_prod)\n"
		for i := range 50 {
			outer := &holdUp{tools: map[string]bool{"update_plan_step": true}, delay: time.Duration(i%3+1) * time.Millisecond}
			next := plantest.ToolCall{Name: "update_plan_step", Arguments: `{"name":"release","step":1,"status":"completed","next":true,"evidence":"built"}`}
			heard, ran, _ := orderAgent(t, i, body, outer, plantest.CallTools(next, deployCall))
			require.Len(t, heard, 1, "run %d: %+v", i, heard)
			require.True(t, heard[0].Allowed, "run %d: deploy_prod ran under the step just taken: %+v", i, heard[0])
			require.Equal(t, 2, heard[0].Step, "run %d", i)
			require.Equal(t, int32(1), ran, "run %d", i)
		}
	})
	t.Run("a work call before a plan call", func(t *testing.T) {
		body := "# Release\n- [ ] Deploy to staging (uses deploy_prod)\n- [ ] Announce the release\n"
		for i := range 50 {
			outer := &holdUp{tools: map[string]bool{"deploy_prod": true}, delay: time.Duration(i%3+1) * time.Millisecond}
			heard, ran, store := orderAgent(t, i, body, outer, plantest.CallTools(deployCall, moveStep(1, "completed")))
			require.Len(t, heard, 1, "run %d: %+v", i, heard)
			require.True(t, heard[0].Allowed, "run %d: deploy_prod ran under the step it was meant for: %+v", i, heard[0])
			require.Equal(t, 1, heard[0].Step, "run %d", i)
			require.Equal(t, int32(1), ran, "run %d", i)
			p, err := store.Get(context.Background(), "release")
			require.NoError(t, err)
			require.Contains(t, p.Content, "- [x] Deploy to staging", "run %d: and then step 1 was finished", i)
		}
	})
}

// A call that never reaches the plan middleware (another handler in front of it answered it)
// holds up no later call of its message for long: the completion listed after it runs.
func TestACallStoppedBeforeTheMiddlewareHoldsUpNoLaterCall(t *testing.T) {
	body := "# Release\n- [ ] Deploy to staging (uses deploy_prod)\n- [ ] Announce the release\n"
	outer := &holdUp{tools: map[string]bool{"deploy_prod": true}, refuse: true}
	start := time.Now()
	heard, ran, store := orderAgent(t, 0, body, outer, plantest.CallTools(deployCall, moveStep(1, "completed")))
	assert.Empty(t, heard, "deploy_prod never reached the gate")
	assert.Zero(t, ran)
	p, err := store.Get(context.Background(), "release")
	require.NoError(t, err)
	assert.Contains(t, p.Content, "- [x] Deploy to staging", "the completion ran")
	assert.Less(t, time.Since(start), time.Minute)
}

// The calls of a message without a plan tool run at once, as Eino runs them: each of two
// calls waits for the other to start.
func TestCallsOfAMessageWithoutPlanToolsRunAtOnce(t *testing.T) {
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), AgentName: "worker"})
	require.NoError(t, err)
	var started, met atomic.Int32
	meet := func(name string) tool.BaseTool {
		return rendezvous{name: name, started: &started, met: &met}
	}
	model := plantest.NewScriptedModel(plantest.CallTools(
		plantest.ToolCall{Name: "fetch_a", Arguments: `{}`}, plantest.ToolCall{Name: "fetch_b", Arguments: `{}`}), plantest.Answer("done"))
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "works",
		Instruction: "You work.", Model: model, Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 5,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{meet("fetch_a"), meet("fetch_b")}}}})
	require.NoError(t, err)
	gateEvents(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "fetch"))
	assert.Equal(t, int32(2), met.Load(), "each call saw the other start while it ran")
}

// rendezvous is a tool whose call waits a while for the other call of its message to start.
type rendezvous struct {
	name         string
	started, met *atomic.Int32
}

func (r rendezvous) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: r.name, Desc: "fetches"}, nil
}

func (r rendezvous) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	r.started.Add(1)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if r.started.Load() == 2 {
			r.met.Add(1)
			return "fetched", nil
		}
	}
	return "alone", nil
}
