package main

import (
	"fmt"
	"strings"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/schema"
)

// Where the billed input goes: every prompt of the cost per step sessions is cut into parts
// (tool definitions, the system message, the plan calls and their results, the work calls
// and theirs, Eino's message ids, the framing of the messages), and each part is billed as
// the whole is, the bytes it shares with the previous prompt at cachedPrice.

// costParts are the parts of a prompt, in the order the table lists them.
var costParts = []string{
	partPlanDefs, partWorkDef, partSystem, partQuery, partPlanCalls, partPlanResults,
	partWorkCalls, partWorkResults, partReminders, partFraming,
}

const (
	partPlanDefs    = "plan (or task) tool definitions"
	partWorkDef     = "work tool definition"
	partSystem      = "system message: instruction and digest"
	partQuery       = "the user's query"
	partPlanCalls   = "plan (or task) calls: name and arguments"
	partPlanResults = "plan (or task) results"
	partWorkCalls   = "work calls: name and arguments"
	partWorkResults = "work results"
	partReminders   = "reminders after the history"
	partFraming     = "message framing: roles, call ids, JSON"
)

// promptPart is a byte range of one prompt and the part it belongs to.
type promptPart struct {
	start, end int
	part       string
}

// promptOf lays a prompt out: every tool definition (OpenAI function JSON), then the
// messages as one JSON array, each as sent (wire) or as Eino serializes it (not wire: with
// Eino's "extra" and "tool_name"); it returns the prompt, its parts, and the bytes of the
// tool definitions.
func promptOf(tools []*schema.ToolInfo, input []*schema.Message, wire bool) (string, []promptPart, int) {
	var b strings.Builder
	var parts []promptPart
	add := func(s, part string) {
		parts = append(parts, promptPart{b.Len(), b.Len() + len(s), part})
		b.WriteString(s)
	}
	for _, info := range tools {
		fn := map[string]any{"name": info.Name, "description": info.Desc}
		if info.ParamsOneOf != nil {
			if js, err := info.ParamsOneOf.ToJSONSchema(); err == nil {
				fn["parameters"] = js
			}
		}
		d, _ := sonic.ConfigStd.MarshalToString(map[string]any{"type": "function", "function": fn})
		if info.Name == workToolName {
			add(d, partWorkDef)
		} else {
			add(d, partPlanDefs)
		}
	}
	defs := b.Len()
	add("[", partFraming)
	for i, msg := range input {
		if i > 0 {
			add(",", partFraming)
		}
		var js string
		if wire {
			js, _ = sonic.ConfigStd.MarshalToString(sentMessage(msg))
		} else {
			js, _ = sonic.ConfigStd.MarshalToString(msg)
		}
		for _, p := range messageParts(i, msg, js) {
			add(js[p.start:p.end], p.part)
		}
	}
	add("]", partFraming)
	return b.String(), parts, defs
}

// wireMessage is a message as eino-ext's OpenAI model sends it (libs/acl/openai: role,
// content, name, tool calls, tool call id, each omitted when empty): Eino's "extra" (its
// message id) and "tool_name" stay behind.
type wireMessage struct {
	Role       schema.RoleType   `json:"role"`
	Content    string            `json:"content,omitempty"`
	Name       string            `json:"name,omitempty"`
	ToolCalls  []schema.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
}

// sentMessage is msg as a provider receives it.
func sentMessage(msg *schema.Message) wireMessage {
	return wireMessage{Role: msg.Role, Content: msg.Content, Name: msg.Name, ToolCalls: msg.ToolCalls, ToolCallID: msg.ToolCallID}
}

// messageParts cuts one message's JSON, as sent, into parts: the whole of it by its role,
// except the tool calls of an assistant message and the content of a tool result.
func messageParts(i int, msg *schema.Message, js string) []promptPart {
	whole := partFraming
	switch {
	case i == 0 && msg.Role == schema.System:
		whole = partSystem
	case i == 1 && msg.Role == schema.User:
		whole = partQuery
	case msg.Role == schema.User || msg.Role == schema.System:
		whole = partReminders
	}
	var marks []promptPart // ranges of js that are not whole, in any order
	mark := func(sub, part string) {
		if at := strings.Index(js, sub); sub != "" && at >= 0 {
			marks = append(marks, promptPart{at, at + len(sub), part})
		}
	}
	for _, tc := range msg.ToolCalls {
		s, _ := sonic.ConfigStd.MarshalToString(tc)
		mark(s, map[bool]string{true: partWorkCalls, false: partPlanCalls}[tc.Function.Name == workToolName])
	}
	if msg.Role == schema.Tool {
		s, _ := sonic.ConfigStd.MarshalToString(msg.Content)
		mark(s, map[bool]string{true: partWorkResults, false: partPlanResults}[msg.ToolName == workToolName])
	}
	sortParts(marks)
	var out []promptPart
	at := 0
	for _, m := range marks {
		if m.start < at {
			continue
		}
		if m.start > at {
			out = append(out, promptPart{at, m.start, whole})
		}
		out = append(out, m)
		at = m.end
	}
	if at < len(js) {
		out = append(out, promptPart{at, len(js), whole})
	}
	return out
}

// sortParts orders parts by where they start.
func sortParts(p []promptPart) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j].start < p[j-1].start; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

// billParts adds to by what each part of one prompt is billed with prompt caching: its
// bytes within the first shared bytes at cachedPrice, the rest in full. Each fragment is
// tokenized alone, so the parts add up to the whole only roughly.
func billParts(c *counter, prompt string, shared int, parts []promptPart, to map[string]float64) {
	for _, p := range parts {
		cut := min(max(shared, p.start), p.end)
		to[p.part] += cachedPrice*float64(c.o(prompt[p.start:cut])) + float64(c.o(prompt[cut:p.end]))
	}
}

// costPartKinds are the setups the parts table shows, the only ones billed part by part.
var costPartKinds = []string{"plan, lean worker", "plan", costLeanAdvance, "no plan tools"}

// costPartsTable shows, per completed step, where the cached billed input of the lean
// worker and of the worker with no plan tools goes, at every number of work calls per step.
func costPartsTable(rows map[int]map[string]costRow, steps int) *table {
	header := []string{"Part"}
	for _, work := range costWorkPerStep {
		header = append(header, fmt.Sprintf("%d: lean", work), fmt.Sprintf("%d: plan", work), fmt.Sprintf("%d: lean, by proof", work), fmt.Sprintf("%d: no plan tools", work))
	}
	t := newTable("Cost per step: where the cached input goes", header...)
	kinds := costPartKinds
	for _, part := range append(costParts, "all parts") {
		cells := []string{part}
		for _, work := range costWorkPerStep {
			for _, kind := range kinds {
				v := 0.0
				for p, billed := range rows[work][kind].parts {
					if p == part || part == "all parts" {
						v += billed
					}
				}
				cells = append(cells, fmtInt(int(v/float64(steps)+0.5)))
			}
		}
		t.add(cells...)
	}
	t.note("Cached input per completed step, in full-price o200k tokens, cut by part; the header says the work calls per step and the setup. Each part of a prompt is billed as the whole is: its bytes within the prefix shared with the previous call at %.0f%%, the rest in full; each fragment is tokenized alone, so the parts add up to the table's total only roughly.", 100*cachedPrice)
	t.note("Each message as a provider receives it: Eino's message ids (\"extra\") and \"tool_name\" are not sent, so not billed.")
	return t
}
