package plan_test

import (
	"context"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// openAIFunctionJSON renders a tool as an OpenAI function definition, compact.
func openAIFunctionJSON(t *testing.T, ctx context.Context, rc *adk.ChatModelAgentContext, name string) string {
	t.Helper()
	for _, bt := range rc.Tools {
		info, err := bt.Info(ctx)
		require.NoError(t, err)
		if info.Name != name {
			continue
		}
		fn := map[string]any{"name": info.Name, "description": info.Desc}
		if info.ParamsOneOf != nil {
			js, err := info.ParamsOneOf.ToJSONSchema()
			require.NoError(t, err)
			fn["parameters"] = js
		}
		out, err := sonic.ConfigStd.MarshalToString(map[string]any{"type": "function", "function": fn})
		require.NoError(t, err)
		return out
	}
	t.Fatalf("tool %s not offered", name)
	return ""
}

var eightTools = []string{"write_plan", "read_plan", "list_plans", "delete_plan", "set_plan_status",
	"get_plan_status", "export_plan_to_file", "update_plan_from_file"}

// TestToolDefinitionBudget keeps what every model call pays for small: the eight
// docker-agent-named tools plus the instruction within 4,800 bytes in English, and
// plan_template within 450 more.
func TestToolDefinitionBudget(t *testing.T) {
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: plan.NewMemoryBackend(), Digest: plan.DigestConfig{Disabled: true}})
	require.NoError(t, err)
	ctx, rc, _ := beforeAgentTools(t, ctx, mw)
	total := len(rc.Instruction) - len("base")
	for _, name := range eightTools {
		def := openAIFunctionJSON(t, ctx, rc, name)
		t.Logf("%-22s %4d bytes", name, len(def))
		total += len(def)
	}
	t.Logf("instruction            %4d bytes", len(rc.Instruction)-len("base"))
	t.Logf("eight tools + instruction: %d bytes", total)
	require.LessOrEqual(t, total, 4800)
	tmpl := openAIFunctionJSON(t, ctx, rc, "plan_template")
	t.Logf("plan_template          %4d bytes", len(tmpl))
	require.LessOrEqual(t, len(tmpl), 450)
	t.Logf("update_plan_step       %4d bytes", len(openAIFunctionJSON(t, ctx, rc, "update_plan_step")))
}

// TestApprovalToolBudget: with RequireApproval the orchestrator pays for request_plan_approval
// and one instruction line, within 400 bytes together; without it, for nothing.
func TestApprovalToolBudget(t *testing.T) {
	ctx := context.Background()
	off, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Digest: plan.DigestConfig{Disabled: true}})
	require.NoError(t, err)
	_, base, tools := beforeAgentTools(t, ctx, off)
	require.NotContains(t, tools, plan.ToolRequestPlanApproval)
	on, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Digest: plan.DigestConfig{Disabled: true}, RequireApproval: true})
	require.NoError(t, err)
	ctx, rc, _ := beforeAgentTools(t, ctx, on)
	def := openAIFunctionJSON(t, ctx, rc, plan.ToolRequestPlanApproval)
	extra := len(rc.Instruction) - len(base.Instruction)
	t.Logf("request_plan_approval  %4d bytes, instruction +%d bytes", len(def), extra)
	require.Greater(t, extra, 0)
	require.LessOrEqual(t, len(def)+extra, 400)
}
