package plan_test

import (
	"context"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// TestSubAgentChangeEvents pins down where a sub-agent's changes show up: its events reach
// the parent runner's iterator through deep's task tool only when the parent's ToolsConfig
// sets EmitInternalEvents, while Config.OnChange sees every change either way.
func TestSubAgentChangeEvents(t *testing.T) {
	for _, forward := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "EmitInternalEvents"}[forward], func(t *testing.T) {
			ctx := context.Background()
			backend := plan.NewMemoryBackend()
			var mu sync.Mutex
			var hosted []plan.Change
			onChange := func(_ context.Context, c plan.Change) {
				mu.Lock()
				hosted = append(hosted, c)
				mu.Unlock()
			}
			mainMW, err := plan.New(ctx, &plan.Config{Backend: backend, OnChange: onChange})
			require.NoError(t, err)
			workerMW, err := plan.New(ctx, &plan.Config{Backend: backend, OnChange: onChange})
			require.NoError(t, err)
			worker := newWorker(t, ctx, plantest.NewScriptedModel(
				plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"completed"}`),
				plantest.Answer("step 1 done"),
			), workerMW)
			main, err := deep.New(ctx, &deep.Config{Name: "main", Description: "orchestrator",
				ChatModel: plantest.NewScriptedModel(
					plantest.CallTool("write_plan", `{"name":"ship","content":`+quote(subPlanBody)+`}`),
					plantest.CallTool("task", `{"subagent_type":"worker","description":"Do step 1 of plan ship"}`),
					plantest.Answer("all done"),
				),
				SubAgents: []adk.Agent{worker}, Handlers: []adk.ChatModelAgentMiddleware{mainMW},
				ToolsConfig:       adk.ToolsConfig{EmitInternalEvents: forward},
				WithoutWriteTodos: true, WithoutGeneralSubAgent: true, MaxIteration: 10})
			require.NoError(t, err)

			var streamed []plan.Change
			for _, ev := range drain(t, adk.NewRunner(ctx, adk.RunnerConfig{Agent: main}).Query(ctx, "ship it")) {
				if ev.Output != nil {
					if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok {
						streamed = append(streamed, c)
					}
				}
			}
			require.Len(t, hosted, 2)
			assert.Equal(t, plan.ActionWrite, hosted[0].Action)
			assert.Equal(t, plan.ActionStep, hosted[1].Action)
			assert.Equal(t, 1, hosted[1].Progress.Completed)
			if forward {
				assert.Equal(t, hosted, streamed, "the worker's change reaches the parent iterator")
			} else {
				assert.Equal(t, hosted[:1], streamed, "only the orchestrator's own change is in its iterator")
			}
		})
	}
}
