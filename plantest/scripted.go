// Package plantest holds a scripted chat model that drives a real Eino agent without a
// network, for tests of code using plan. The conformance suite every Backend must pass is
// package github.com/einoplan/plan/backends/backendtest.
package plantest

import (
	"context"
	"fmt"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// Turn produces the model's next message from the messages it was given. Returning nil
// ends the script early with a final answer.
type Turn func(input []*schema.Message) *schema.Message

// ScriptedModel is a model.ToolCallingChatModel that plays its turns in order and then
// answers "done". It records the tool list and input of every call, so tests can assert
// what the agent showed the model. It is safe for concurrent use, but one instance should
// serve one agent: turns are shared.
type ScriptedModel struct {
	mu     sync.Mutex
	turns  []Turn
	next   int
	calls  []Call
	bound  []*schema.ToolInfo
	parent *ScriptedModel
	// billing is Billing's bytes per token; 0 reports no usage but what turns set.
	billing int
}

// Call is one recorded model call.
type Call struct {
	Input []*schema.Message
	Tools []*schema.ToolInfo
}

// NewScriptedModel returns a model that plays turns in order.
func NewScriptedModel(turns ...Turn) *ScriptedModel {
	return &ScriptedModel{turns: turns}
}

// CallTool is a Turn that asks for one tool call with the given raw JSON arguments.
func CallTool(name, argumentsJSON string) Turn {
	return CallTools(ToolCall{Name: name, Arguments: argumentsJSON})
}

// ToolCall is one tool call of a CallTools turn.
type ToolCall struct {
	Name      string
	Arguments string
}

// CallTools is a Turn that asks for several tool calls at once.
func CallTools(calls ...ToolCall) Turn {
	return func([]*schema.Message) *schema.Message {
		msg := &schema.Message{Role: schema.Assistant}
		for i, c := range calls {
			msg.ToolCalls = append(msg.ToolCalls, schema.ToolCall{
				ID:       fmt.Sprintf("call_%d_%s", i, c.Name),
				Type:     "function",
				Function: schema.FunctionCall{Name: c.Name, Arguments: c.Arguments},
			})
		}
		return msg
	}
}

// Answer is a Turn that gives a final text answer.
func Answer(text string) Turn {
	return func([]*schema.Message) *schema.Message { return schema.AssistantMessage(text, nil) }
}

func (m *ScriptedModel) root() *ScriptedModel {
	if m.parent != nil {
		return m.parent
	}
	return m
}

// Generate plays the next turn.
func (m *ScriptedModel) Generate(_ context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	r := m.root()
	r.mu.Lock()
	tools := model.GetCommonOptions(&model.Options{Tools: m.bound}, opts...).Tools
	r.calls = append(r.calls, Call{Input: append([]*schema.Message(nil), input...), Tools: tools})
	var turn Turn
	if r.next < len(r.turns) {
		turn = r.turns[r.next]
		r.next++
	}
	bill := r.billing
	r.mu.Unlock()
	var msg *schema.Message
	if turn != nil {
		msg = turn(input)
	}
	if msg == nil {
		msg = schema.AssistantMessage("done", nil)
	}
	if bill > 0 {
		msg = billed(msg, input, tools, bill)
	}
	return msg, nil
}

// Stream plays the next turn as a one-chunk stream.
func (m *ScriptedModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

// WithTools returns a view of the same script bound to tools.
func (m *ScriptedModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &ScriptedModel{parent: m.root(), bound: tools}, nil
}

// Calls returns every call made so far.
func (m *ScriptedModel) Calls() []Call {
	r := m.root()
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// ToolNames returns the names of the tools offered on call i.
func (c Call) ToolNames() []string {
	names := make([]string, 0, len(c.Tools))
	for _, t := range c.Tools {
		names = append(names, t.Name)
	}
	return names
}

// ToolResults returns the tool result messages the model has been shown, in order,
// as seen in the input of the last call.
func (m *ScriptedModel) ToolResults() []*schema.Message {
	calls := m.Calls()
	if len(calls) == 0 {
		return nil
	}
	var out []*schema.Message
	for _, msg := range calls[len(calls)-1].Input {
		if msg.Role == schema.Tool {
			out = append(out, msg)
		}
	}
	return out
}
