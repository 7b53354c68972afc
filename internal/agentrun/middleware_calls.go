package agentrun

import (
	"context"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// The middleware's hooks around each tool call of the agent: its turn among the calls of its
// message (message_order.go), a context of its own per call (who acts, in which run), and
// the gate of Config.GatedTools.

// WrapInvokableToolCall runs each tool call of the agent in its turn among the calls of its
// message when a plan tool is among them, gives it a context of its own, so a run started
// inside it (a sub-agent) knows it is nested, and runs a gated tool only under an approved
// step (Config.GatedTools).
func (m *Middleware[M, S]) WrapInvokableToolCall(_ context.Context, endpoint adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	name := toolNameOf(tc)
	endpoint = m.observing(name, endpoint) // observe.go
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		defer m.awaitTurn(ctx, tc)() // waits for the call's turn now, marks it over on return
		ctx, done := m.startCall(ctx, name, args)
		defer done()
		files := m.files.Judge(m.fileToolKind(ctx, name), args)
		if files.Err != nil {
			refuseInside(ctx) // observe.go
			return m.set(ctx).env.ErrorResult(files.Err), nil
		}
		if refused, ok := m.check(ctx, name); !ok {
			refuseInside(ctx)
			return refused, nil
		}
		if files.Keep != nil {
			out, err := endpoint(ctx, args, opts...)
			return files.Keep(out), err
		}
		return endpoint(ctx, args, opts...)
	}, nil
}

// WrapStreamableToolCall is WrapInvokableToolCall for tools that stream their result.
func (m *Middleware[M, S]) WrapStreamableToolCall(_ context.Context, endpoint adk.StreamableToolCallEndpoint, tc *adk.ToolContext) (adk.StreamableToolCallEndpoint, error) {
	name := toolNameOf(tc)
	return func(ctx context.Context, args string, opts ...tool.Option) (*schema.StreamReader[string], error) {
		defer m.awaitTurn(ctx, tc)()
		ctx, done := m.startCall(ctx, name, args)
		defer done()
		if refused, ok := m.guardWhole(ctx, name, args); !ok {
			return schema.StreamReaderFromArray([]string{refused}), nil
		}
		if refused, ok := m.check(ctx, name); !ok {
			return schema.StreamReaderFromArray([]string{refused}), nil
		}
		return endpoint(ctx, args, opts...)
	}, nil
}

// WrapEnhancedInvokableToolCall is WrapInvokableToolCall for tools with multimodal results.
func (m *Middleware[M, S]) WrapEnhancedInvokableToolCall(_ context.Context, endpoint adk.EnhancedInvokableToolCallEndpoint, tc *adk.ToolContext) (adk.EnhancedInvokableToolCallEndpoint, error) {
	name := toolNameOf(tc)
	return func(ctx context.Context, arg *schema.ToolArgument, opts ...tool.Option) (*schema.ToolResult, error) {
		defer m.awaitTurn(ctx, tc)()
		ctx, done := m.startCall(ctx, name, argumentText(arg))
		defer done()
		if refused, ok := m.guardWhole(ctx, name, argumentText(arg)); !ok {
			return textResult(refused), nil
		}
		if refused, ok := m.check(ctx, name); !ok {
			return textResult(refused), nil
		}
		return endpoint(ctx, arg, opts...)
	}, nil
}

// WrapEnhancedStreamableToolCall is WrapInvokableToolCall for tools that stream multimodal
// results.
func (m *Middleware[M, S]) WrapEnhancedStreamableToolCall(_ context.Context, endpoint adk.EnhancedStreamableToolCallEndpoint, tc *adk.ToolContext) (adk.EnhancedStreamableToolCallEndpoint, error) {
	name := toolNameOf(tc)
	return func(ctx context.Context, arg *schema.ToolArgument, opts ...tool.Option) (*schema.StreamReader[*schema.ToolResult], error) {
		defer m.awaitTurn(ctx, tc)()
		ctx, done := m.startCall(ctx, name, argumentText(arg))
		defer done()
		if refused, ok := m.guardWhole(ctx, name, argumentText(arg)); !ok {
			return schema.StreamReaderFromArray([]*schema.ToolResult{textResult(refused)}), nil
		}
		if refused, ok := m.check(ctx, name); !ok {
			return schema.StreamReaderFromArray([]*schema.ToolResult{textResult(refused)}), nil
		}
		return endpoint(ctx, arg, opts...)
	}, nil
}

// startCall marks ctx as one tool call of this agent; done ends the call. The name a
// sub-agent started in the call takes stays taken until its run ends too.
func (m *Middleware[M, S]) startCall(ctx context.Context, name, args string) (context.Context, func()) {
	call := &callToken{tool: name, args: args, names: m.running}
	if st, ok := ctx.Value(m.stateKey).(*runState); ok {
		st.mu.Lock()
		call.starters = st.starters
		st.mu.Unlock()
	}
	call.begin()
	if r := m.costsIn(ctx); r != nil {
		r.ToolCall()
	}
	return context.WithValue(ctx, callKey{}, call), call.release
}

func toolNameOf(tc *adk.ToolContext) string {
	if tc == nil {
		return ""
	}
	return tc.Name
}

func argumentText(arg *schema.ToolArgument) string {
	if arg == nil {
		return ""
	}
	return arg.Text
}

func textResult(text string) *schema.ToolResult {
	return &schema.ToolResult{Parts: []schema.ToolOutputPart{{Type: schema.ToolPartTypeText, Text: text}}}
}

// guardWhole is the guard for a tool whose result the middleware does not rewrite (a
// stream, a multimodal result): a listing that would need entries left out is refused.
func (m *Middleware[M, S]) guardWhole(ctx context.Context, name, args string) (refusal string, ok bool) {
	v := m.files.Judge(m.fileToolKind(ctx, name), args)
	if v.Err == nil && v.Keep != nil {
		v.Err = v.whole
	}
	if v.Err != nil {
		return m.set(ctx).env.ErrorResult(v.Err), false
	}
	return "", true
}
