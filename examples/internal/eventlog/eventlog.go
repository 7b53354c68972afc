// Package eventlog prints an Eino agent run's events the way the examples show them: plan
// changes as progress bars, tool calls, failed tool results and answers as one line each.
package eventlog

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/einoplan/plan/api"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/einoplan/plan"
)

// Print writes one event to w, naming the agent; arguments are cut to argWidth runes and
// error results to resultWidth.
func Print(w io.Writer, ev *adk.AgentEvent, argWidth, resultWidth int) {
	if ev.Output == nil {
		return
	}
	if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok {
		fmt.Fprintf(w, "  %s %d/%d %s r%d %s\n", Bar(c.Progress, 10),
			c.Progress.Completed, c.Progress.Total, c.Name, c.Revision, c.Action)
		return
	}
	if ev.Output.MessageOutput == nil || ev.Output.MessageOutput.Message == nil {
		return
	}
	msg := ev.Output.MessageOutput.Message
	who := ev.AgentName
	switch {
	case msg.Role == schema.Assistant && len(msg.ToolCalls) > 0:
		for _, tc := range msg.ToolCalls {
			fmt.Fprintf(w, "%s → %s %s\n", who, tc.Function.Name, Shorten(tc.Function.Arguments, argWidth))
		}
	case msg.Role == schema.Tool && strings.HasPrefix(msg.Content, `{"error":`):
		fmt.Fprintf(w, "%s ← %s\n", who, Shorten(msg.Content, resultWidth))
	case msg.Role == schema.Assistant && strings.TrimSpace(msg.Content) != "":
		fmt.Fprintf(w, "%s: %s\n", who, strings.TrimSpace(msg.Content))
	}
}

// Bar draws p as "[####------]", counting completed and skipped steps as done.
func Bar(p api.Progress, width int) string {
	filled := 0
	if p.Total > 0 {
		filled = (p.Completed + p.Skipped) * width / p.Total
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat("-", width-filled) + "]"
}

// Shorten puts s on one line and cuts it to at most n runes.
func Shorten(s string, n int) string {
	r := []rune(strings.ReplaceAll(s, "\n", `\n`))
	if len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return string(r)
}

// Run runs agent on query through an adk.Runner and hands each event to show; the first
// error event ends the run and is returned.
func Run(ctx context.Context, agent adk.Agent, query string, show func(*adk.AgentEvent)) error {
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, query)
	for {
		ev, ok := iter.Next()
		if !ok {
			return nil
		}
		if ev.Err != nil {
			return ev.Err
		}
		show(ev)
	}
}
