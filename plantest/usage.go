package plantest

import (
	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/schema"
)

// Usage is what a Turn's message reports it cost, as a provider's response does in
// schema.Message.ResponseMeta.Usage.
type Usage struct {
	PromptTokens, CompletionTokens int
}

// WithUsage is turn with its message reporting u. A turn that ends the script (nil) still
// does: the final answer is reported with u.
func WithUsage(turn Turn, u Usage) Turn {
	return func(input []*schema.Message) *schema.Message {
		msg := turn(input)
		if msg == nil {
			msg = schema.AssistantMessage("done", nil)
		}
		return withUsage(msg, u)
	}
}

func withUsage(msg *schema.Message, u Usage) *schema.Message {
	out := *msg
	meta := schema.ResponseMeta{}
	if msg.ResponseMeta != nil {
		meta = *msg.ResponseMeta
	}
	meta.Usage = &schema.TokenUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		TotalTokens: u.PromptTokens + u.CompletionTokens}
	out.ResponseMeta = &meta
	return &out
}

// Billing makes every answer of the model report usage as a provider bills it: the prompt
// is every input message and every tool definition it was given, the completion its own
// message, each counted as one token per bytesPerToken bytes of their JSON (rounded up).
// A turn that sets its own usage keeps it. It returns m.
func (m *ScriptedModel) Billing(bytesPerToken int) *ScriptedModel {
	r := m.root()
	r.mu.Lock()
	r.billing = max(bytesPerToken, 1)
	r.mu.Unlock()
	return m
}

// billed is msg with the usage Billing reports for it.
func billed(msg *schema.Message, input []*schema.Message, tools []*schema.ToolInfo, bytesPerToken int) *schema.Message {
	if msg.ResponseMeta != nil && msg.ResponseMeta.Usage != nil {
		return msg
	}
	in, _ := sonic.Marshal(input)
	defs, _ := sonic.Marshal(tools)
	if len(tools) == 0 {
		defs = nil
	}
	out, _ := sonic.Marshal(msg)
	tokens := func(n int) int { return (n + bytesPerToken - 1) / bytesPerToken }
	return withUsage(msg, Usage{PromptTokens: tokens(len(in) + len(defs)), CompletionTokens: tokens(len(out))})
}
