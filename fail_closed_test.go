package plan_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/filesystem"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/plantest"
)

// runErr drains a run and returns the error that ended it, if any.
func runErr(iter *adk.AsyncIterator[*adk.AgentEvent]) error {
	for {
		ev, ok := iter.Next()
		if !ok {
			return nil
		}
		if ev.Err != nil {
			return ev.Err
		}
	}
}

// GatedTools names are matched exactly, after trimming the space around them. New refuses a
// name with a wildcard or a space inside; a name that matches no tool of the run but one in
// another case, or the start of one ("deploy" for deploy_prod), fails the run at its first
// model call, before any tool ran; one that matches nothing at all (it may be meant for
// another agent the middleware serves) starts the run with a RunWarning; "deploy_prod "
// gates deploy_prod.
func TestGatedToolsNamesAreMatchedExactly(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []string{"deploy_*", "deploy?", "deploy prod", "[deploy]_prod"} {
		_, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), GatedTools: []string{bad}})
		assert.Error(t, err, "%q is refused", bad)
	}
	for _, name := range []string{"Deploy_Prod", "deploy"} {
		t.Run(name, func(t *testing.T) {
			var deploys atomic.Int32
			var log gateLog
			_, runner := usesAgent(t, &plan.Config{Backend: plan.NewMemoryBackend(), AgentName: "worker", GatedTools: []string{name}},
				filesystem.NewInMemoryBackend(), &deploys, &log, deploy, plantest.Answer("done"))
			err := runErr(runner.Query(ctx, "go"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), `"`+name+`"`)
			assert.Zero(t, deploys.Load(), "deploy_prod never ran")
		})
	}
	t.Run("matching nothing", func(t *testing.T) {
		var deploys atomic.Int32
		var log gateLog
		_, runner := usesAgent(t, &plan.Config{Backend: plan.NewMemoryBackend(), AgentName: "worker", GatedTools: []string{"ship_it"}},
			filesystem.NewInMemoryBackend(), &deploys, &log, plantest.Answer("done"))
		events, _ := gateEvents(t, runner.Query(ctx, "go"))
		var warned []api.RunWarning
		for _, ev := range events {
			if ev.Output == nil {
				continue
			}
			if w, ok := ev.Output.CustomizedOutput.(api.RunWarning); ok {
				warned = append(warned, w)
			}
		}
		require.Len(t, warned, 1, "a name that may be another agent's is reported, not silent")
		assert.Equal(t, api.WarningGatedToolMissing, warned[0].Reason)
		assert.Contains(t, warned[0].Message, `"ship_it"`)
	})
	t.Run("trimmed", func(t *testing.T) {
		var deploys atomic.Int32
		var log gateLog
		model, runner := usesAgent(t, &plan.Config{Backend: plan.NewMemoryBackend(), AgentName: "worker", GatedTools: []string{"deploy_prod "}},
			filesystem.NewInMemoryBackend(), &deploys, &log, deploy, plantest.Answer("done"))
		require.NoError(t, runErr(runner.Query(ctx, "go")))
		code, _ := gateCode(t, gateResult(t, model, 1))
		assert.Equal(t, "not_approved", code)
		assert.Zero(t, deploys.Load())
	})
}

// A second plan middleware that gates nothing, listed after the gating one (so the gating
// one's BeforeAgent never saw its tools), cannot export a plan over a file with no plan
// approved: its export_plan_to_file is gated like the gating middleware's own.
func TestAnExportOfAPlanMiddlewareListedAfterTheGatingOneIsGated(t *testing.T) {
	ctx := context.Background()
	files := filesystem.NewInMemoryBackend()
	fs, err := fsmw.New(ctx, &fsmw.MiddlewareConfig{Backend: files})
	require.NoError(t, err)
	var log gateLog
	team, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), AgentName: "worker",
		GatedTools: []string{"write_file"}, OnGatedCall: log.hear})
	require.NoError(t, err)
	mine, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: files, AgentName: "worker", ToolPrefix: "my_"})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("my_write_plan", `{"name":"notes","content":"# x\n- [ ] y\n","last_known_revision":0}`),
		plantest.CallTool("my_export_plan_to_file", `{"name":"notes","path":"/app/deploy.sh"}`),
		plantest.Answer("done"))
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "works",
		Instruction: "You work.", Model: model, Handlers: []adk.ChatModelAgentMiddleware{fs, team, mine}})
	require.NoError(t, err)
	require.NoError(t, runErr(adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")))
	code, _ := gateCode(t, gateResult(t, model, 2))
	assert.Equal(t, "not_approved", code, gateResult(t, model, 2))
	_, written := fileOn(ctx, files, "/app/deploy.sh")
	assert.False(t, written, "nothing was exported")
	require.Len(t, log.calls(), 1)
	assert.Equal(t, "my_export_plan_to_file", log.calls()[0].Tool)
}
