package agentrun

import (
	"context"
	"reflect"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/schema"

	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/memfs"
)

// testTexts stand in for the root's text tables where the words are not what a test checks.
var testTexts = map[adk.Language]Texts{adk.LanguageEnglish: {Full: map[string]string{}}, adk.LanguageChinese: {Full: map[string]string{}}}

// testMiddleware is the middleware of s on a Store of its own over a MemoryBackend.
func testMiddleware(t testing.TB, s Settings[any]) *Middleware[*schema.Message, any] {
	t.Helper()
	store, err := engine.NewStore(&engine.StoreConfig{Backend: memfs.New()})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMiddleware[*schema.Message](s, store, testTexts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type silentModel struct{}

func (silentModel) Generate(context.Context, []*schema.Message, ...model.Option) (*schema.Message, error) {
	return schema.AssistantMessage("ok", nil), nil
}

func (silentModel) Stream(context.Context, []*schema.Message, ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return schema.StreamReaderFromArray([]*schema.Message{schema.AssistantMessage("ok", nil)}), nil
}

// An agent tool's agent counts as gated by its own plan middleware only when that agent (a
// chat model agent, a deep agent, or either wrapped by adk) has one gating every tool.
func TestOnlyAnAgentWithAPlanMiddlewareGatingEveryToolGuardsItsStarter(t *testing.T) {
	ctx := context.Background()
	mw := func(gated ...string) adk.ChatModelAgentMiddleware {
		return testMiddleware(t, Settings[any]{GatedTools: gated})
	}
	agent := func(name string, handlers ...adk.ChatModelAgentMiddleware) adk.Agent {
		a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: name, Description: "d", Model: silentModel{}, Handlers: handlers})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	star := mw("*")
	deepAgent, err := deep.New(ctx, &deep.Config{Name: "lead", Description: "d", ChatModel: silentModel{},
		SubAgents: []adk.Agent{agent("worker", star), agent("plain")}, Handlers: []adk.ChatModelAgentMiddleware{star},
		WithoutWriteTodos: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what  string
		agent adk.Agent
		want  bool
	}{
		{"gates every tool", agent("a", star), true},
		{"gates named tools", agent("a", mw("deploy_prod")), false},
		{"gates nothing", agent("a", mw()), false},
		{"no plan middleware", agent("a"), false},
		{"wrapped by adk", adk.AgentWithOptions(ctx, agent("a", star)), true},
		{"a deep agent", deepAgent, true},
	} {
		s := starterOf(adk.NewAgentTool(ctx, tc.agent), "a")
		if s == nil || s.Kind != agentToolStarter {
			t.Fatalf("%s: the agent tool is no starter", tc.what)
		}
		if s.Guarded["a"] != tc.want {
			t.Errorf("%s: guarded %v, want %v", tc.what, s.Guarded["a"], tc.want)
		}
	}

	// The deep agent's own task tool, as deep.New adds it: each sub-agent by its own gate.
	probe := &toolProbe{BaseChatModelAgentMiddleware: &adk.BaseChatModelAgentMiddleware{}}
	lead, err := deep.New(ctx, &deep.Config{Name: "lead", Description: "d", ChatModel: silentModel{},
		SubAgents: []adk.Agent{agent("worker", star), agent("plain")}, Handlers: []adk.ChatModelAgentMiddleware{probe},
		WithoutWriteTodos: true})
	if err != nil {
		t.Fatal(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: lead}).Query(ctx, "hi")
	for _, ok := iter.Next(); ok; _, ok = iter.Next() {
	}
	exempt, _, starters := exemptTools(ctx, probe.tools)
	if len(exempt) != 0 || len(starters) != 1 || starters["task"] == nil || starters["task"].Kind != deepTaskStarter {
		t.Fatalf("exempt %v, starters %v", exempt, starters)
	}
	// general-purpose gets deep.Config.Handlers, which here have no plan middleware.
	if want := map[string]bool{"worker": true, "plain": false, "general-purpose": false}; !reflect.DeepEqual(starters["task"].Guarded, want) {
		t.Errorf("task guards %v, want %v", starters["task"].Guarded, want)
	}
}

// toolProbe keeps the tools of the run it is in.
type toolProbe struct {
	*adk.BaseChatModelAgentMiddleware
	tools []tool.BaseTool
}

func (p *toolProbe) BeforeAgent(ctx context.Context, runCtx *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	p.tools = runCtx.Tools
	return ctx, runCtx, nil
}

// Tools are starters by what they are, never by name or parameters: a host's tool called
// agent or task with a subagent_type parameter is none, and Eino v0.9 has no type of its next
// line's agent tool, so nothing here is taken for it.
func TestAToolNamedLikeAStarterIsNone(t *testing.T) {
	ctx := context.Background()
	type input struct {
		SubagentType string `json:"subagent_type"`
		Prompt       string `json:"prompt"`
	}
	for _, name := range []string{"agent", "task"} {
		it, err := utils.InferTool(name, "starts agents", func(context.Context, input) (string, error) { return "", nil })
		if err != nil {
			t.Fatal(err)
		}
		if s := starterOf(it, name); s != nil {
			t.Errorf("%s is taken for a starter", name)
		}
		if _, _, starters := exemptTools(ctx, []tool.BaseTool{it}); starters != nil {
			t.Errorf("%s is taken for a starter", name)
		}
	}
	if isSubagentTool(reflect.TypeOf(&struct{}{})) {
		t.Error("a plain type is taken for the subagent tool")
	}
	// isSubagentTool reads the type's name as reflect writes an instance of a generic type:
	// with each type argument's full package path.
	it, err := utils.InferTool("agent", "starts agents", func(context.Context, starterProbeInput) (string, error) { return "", nil })
	if err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeOf(it)
	if got, want := typ.Elem().Name(), "invokableTool["+"github.com/einoplan/plan/internal/agentrun.starterProbeInput,string]"; got != want || typ.Elem().PkgPath() != einoToolUtil {
		t.Errorf("an inferred tool's type is %s.%s", typ.Elem().PkgPath(), got)
	}
}

// starterProbeInput is an inferred tool's input, shaped as the next line's agent tool's.
type starterProbeInput struct {
	SubagentType string `json:"subagent_type"`
	Prompt       string `json:"prompt"`
}
