package plan_test

import (
	"context"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// agenticScript is a scripted model on *schema.AgenticMessage: it calls write_plan with a
// bad name, then with a good one, then answers.
type agenticScript struct {
	mu      sync.Mutex
	calls   int
	tools   [][]string
	results []string
}

func (m *agenticScript) Generate(_ context.Context, in []*schema.AgenticMessage, opts ...model.Option) (*schema.AgenticMessage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for _, ti := range model.GetCommonOptions(nil, opts...).Tools {
		names = append(names, ti.Name)
	}
	m.tools = append(m.tools, names)
	m.results = m.results[:0]
	for _, msg := range in {
		for _, b := range msg.ContentBlocks {
			if b.FunctionToolResult != nil {
				for _, c := range b.FunctionToolResult.Content {
					if c.Text != nil {
						m.results = append(m.results, c.Text.Text)
					}
				}
			}
		}
	}
	m.calls++
	call := func(args string) *schema.AgenticMessage {
		return &schema.AgenticMessage{Role: schema.AgenticRoleTypeAssistant, ContentBlocks: []*schema.ContentBlock{
			schema.NewContentBlock(&schema.FunctionToolCall{CallID: "c" + args[:3], Name: "write_plan", Arguments: args}),
		}}
	}
	switch m.calls {
	case 1:
		return call(`{"name":"Bad Name","content":"x"}`), nil
	case 2:
		return call(`{"name":"agentic","content":"- [ ] one\n"}`), nil
	}
	return &schema.AgenticMessage{Role: schema.AgenticRoleTypeAssistant, ContentBlocks: []*schema.ContentBlock{
		schema.NewContentBlock(&schema.AssistantGenText{Text: "done"}),
	}}, nil
}

func (m *agenticScript) Stream(ctx context.Context, in []*schema.AgenticMessage, opts ...model.Option) (*schema.StreamReader[*schema.AgenticMessage], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.AgenticMessage{msg}), nil
}

func TestNewTypedWithAgenticMessages(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.NewTyped[*schema.AgenticMessage](ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	m := &agenticScript{}
	agent, err := adk.NewTypedChatModelAgent(ctx, &adk.TypedChatModelAgentConfig[*schema.AgenticMessage]{
		Name: "agentic", Description: "agentic planner", Instruction: "plan", Model: m,
		Handlers: []adk.TypedChatModelAgentMiddleware[*schema.AgenticMessage]{mw},
	})
	require.NoError(t, err)
	runner := adk.NewTypedRunner(adk.TypedRunnerConfig[*schema.AgenticMessage]{Agent: agent})
	iter := runner.Run(ctx, []*schema.AgenticMessage{schema.UserAgenticMessage("plan it")})
	var changes []plan.Change
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		require.NoError(t, ev.Err)
		if ev.Output != nil {
			if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok {
				changes = append(changes, c)
			}
		}
	}
	require.Equal(t, 3, m.calls)
	assert.Contains(t, m.tools[0], "write_plan")
	require.Len(t, m.results, 2)
	assert.Equal(t, "invalid_argument", errorCode(t, m.results[0]))
	assert.Equal(t, "", errorCode(t, m.results[1]))
	require.Len(t, changes, 1, "the typed middleware emits change events of its own message type")
	assert.Equal(t, "agentic", changes[0].Name)
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	p, err := store.Get(ctx, "agentic")
	require.NoError(t, err)
	assert.Equal(t, "- [ ] one\n", p.Content)
}
