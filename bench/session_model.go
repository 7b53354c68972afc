package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// decider chooses an agent's next tool calls from the results of its previous ones
// (nil on the first turn), as a disciplined model would; no calls ends the run.
type decider interface {
	next(results []string) []call
}

// noter is a decider that reads the note the middleware appended after the results.
type noter interface {
	noted(text string)
}

// call is one tool call a decider asks for.
type call struct{ tool, args string }

// reactiveModel is a model.ToolCallingChatModel that plays a decider. It keeps every
// argument and result string it sees, so tokens are counted after the session, outside
// the timed part. One instance serves one agent.
type reactiveModel struct {
	mu      sync.Mutex
	d       decider
	turns   int
	args    []string
	results []string
	notes   []string // reminders the middleware appended after tool results
}

func newReactiveModel(d decider) *reactiveModel { return &reactiveModel{d: d} }

// Generate counts a turn, hands the decider the tool results since the model's last
// message, and answers with the calls it asks for, or a final text answer.
func (m *reactiveModel) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns++
	var results []string
	i := len(input) - 1
	for i >= 0 && input[i].Role == schema.User && len(results) == 0 && i > 0 && input[i-1].Role == schema.Tool {
		m.notes = append(m.notes, input[i].Content)
		if n, ok := m.d.(noter); ok {
			n.noted(input[i].Content)
		}
		i-- // a note the middleware appended after the results (a reminder, a step the host moved)
	}
	for ; i >= 0 && input[i].Role == schema.Tool; i-- {
		results = append([]string{input[i].Content}, results...)
	}
	m.results = append(m.results, results...)
	if len(results) == 0 {
		results = nil
	}
	calls := m.d.next(results)
	if len(calls) == 0 {
		return schema.AssistantMessage("done", nil), nil
	}
	msg := &schema.Message{Role: schema.Assistant}
	for i, c := range calls {
		m.args = append(m.args, c.args)
		msg.ToolCalls = append(msg.ToolCalls, schema.ToolCall{
			ID:       fmt.Sprintf("call_%d_%d", m.turns, i),
			Type:     "function",
			Function: schema.FunctionCall{Name: c.tool, Arguments: c.args},
		})
	}
	return msg, nil
}

// Stream plays Generate as a one-chunk stream.
func (m *reactiveModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// WithTools returns the same model: a decider knows its tools.
func (m *reactiveModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

// tokens returns the o200k tokens of every argument and every result seen.
func (m *reactiveModel) tokens(c *counter) (in, out int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, a := range m.args {
		in += c.o(a)
	}
	for _, r := range m.results {
		out += c.o(r)
	}
	return in, out
}
