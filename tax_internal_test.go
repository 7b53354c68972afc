package plan

import (
	"context"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// taxOf is what a middleware made with cfg adds to every model call of an agent working on
// one plan, in lang: tool definitions, instruction and digest.
func taxOf(t *testing.T, cfg Config, lang adk.Language) (tools, instruction int) {
	t.Helper()
	ctx := context.Background()
	store, err := NewStore(&StoreConfig{Backend: NewMemoryBackend()})
	require.NoError(t, err)
	body := "# Release 2.0\n- [x] Write the changelog\n- [ ] Run the checks\n- [ ] Tag and publish (after 2)\n"
	_, err = store.Put(ctx, Update{Name: "release", Content: &body})
	require.NoError(t, err)
	cfg.Store, cfg.Language = store, lang
	mw, err := New(ctx, &cfg)
	require.NoError(t, err)
	tools, instruction, err = planTax(ctx, mw)
	require.NoError(t, err)
	return tools, instruction
}

// A lean worker's plan tax is at most 1,500 bytes per model call, with every guard on
// (approval, gated tools, evidence, verification) and the digest of its plan, in English and
// Chinese, against more than twice that for the full tool set. The bytes are deterministic.
func TestALeanWorkersPlanTaxFitsInFifteenHundredBytes(t *testing.T) {
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		guards := Config{AgentName: "worker-1", Role: RoleSubAgent, GatedTools: []string{"shell"}, RequireEvidence: true,
			Verify: func(context.Context, Completion) error { return nil }}
		lean := guards
		lean.LeanWorker = true
		leanTools, leanIns := taxOf(t, lean, lang)
		fullTools, fullIns := taxOf(t, guards, lang)
		t.Logf("language %v: lean %d (tools %d, instruction and digest %d); full %d (tools %d, instruction and digest %d)",
			lang, leanTools+leanIns, leanTools, leanIns, fullTools+fullIns, fullTools, fullIns)
		orchTools, orchIns := taxOf(t, Config{AgentName: "lead", Role: RoleOrchestrator, RequireApproval: true}, lang)
		t.Logf("language %v: orchestrator %d (tools %d, instruction and digest %d)", lang, orchTools+orchIns, orchTools, orchIns)
		assert.LessOrEqual(t, leanTools+leanIns, 1500)
		assert.Greater(t, fullTools+fullIns, 2*(leanTools+leanIns))
	}
}

// The plan tax is what the middleware adds to every model call of its agent: the plan tools'
// definitions, as a provider receives them (the OpenAI function JSON, compact), and the text
// it adds to the instruction (the instruction proper and the digest). Reminders add to a
// call only after others changed the plans, at most once every Config.ReminderEvery calls.

// functionBytes is the size of a tool's definition as a model call carries it.
func functionBytes(info *schema.ToolInfo) (int, error) {
	if info == nil {
		return 0, nil
	}
	fn := map[string]any{"name": info.Name, "description": info.Desc}
	if info.ParamsOneOf != nil {
		js, err := info.ParamsOneOf.ToJSONSchema()
		if err != nil {
			return 0, err
		}
		fn["parameters"] = js
	}
	def, err := sonic.ConfigStd.MarshalToString(map[string]any{"type": "function", "function": fn})
	return len(def), err
}

// planTax runs mw's BeforeAgent for an agent with no tools and no instruction of its own, and
// its rewrite of a model call's state, and returns the bytes it adds to every model call: the
// definitions of the tools the model sees and the instruction (with the digest).
func planTax(ctx context.Context, mw adk.ChatModelAgentMiddleware) (tools, instruction int, err error) {
	ctx, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{})
	if err != nil {
		return 0, 0, err
	}
	state := &adk.ChatModelAgentState{}
	for _, t := range rc.Tools {
		info, err := t.Info(ctx)
		if err != nil {
			return 0, 0, err
		}
		state.ToolInfos = append(state.ToolInfos, info)
	}
	if _, state, err = mw.BeforeModelRewriteState(ctx, state, &adk.ModelContext{}); err != nil {
		return 0, 0, err
	}
	for _, info := range state.ToolInfos {
		n, err := functionBytes(info)
		if err != nil {
			return 0, 0, err
		}
		tools += n
	}
	return tools, len(rc.Instruction), nil
}
