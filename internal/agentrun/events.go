package agentrun

import (
	"bytes"
	"context"
	"encoding/gob"

	"github.com/cloudwego/eino/adk"
	"github.com/einoplan/plan/internal/engine"
)

// What the middleware tells the host and the run's events.

// listening reports whether a change made with ctx has anyone to go to: the host's OnChange,
// or the events of a run.
func (m *Middleware[M, S]) listening(ctx context.Context) bool {
	return m.cfg.OnChange != nil || inRun(ctx)
}

// changeSink returns what hears the changes made through this middleware's tools: the
// host's OnChange and, during a run, the run's event stream. Tools attach it only while
// listening holds, so no Change is computed for a call nobody hears.
func (m *Middleware[M, S]) changeSink() func(context.Context, engine.Change) {
	return func(ctx context.Context, c engine.Change) {
		if m.cfg.OnChange != nil {
			m.cfg.OnChange(ctx, c)
		}
		m.emit(ctx, c)
	}
}

// emit sends out as an event of the run of ctx, if any. A parallel run of a sub-agent
// names itself in the event's AgentName ("worker·2"), so hosts tell its events from the
// other run's.
func (m *Middleware[M, S]) emit(ctx context.Context, out any) {
	if !inRun(ctx) {
		return
	}
	ev := &adk.TypedAgentEvent[M]{Output: &adk.TypedAgentOutput[M]{CustomizedOutput: out}}
	if st, ok := ctx.Value(m.stateKey).(*runState); ok && st.renamed {
		ev.AgentName, ev.RunPath = st.agent, runPathOf(st.agent)
	}
	_ = adk.TypedSendEvent[M](ctx, ev)
}

// runPathOf is the RunPath of an event that a parallel run of a sub-agent sends under its own
// name: Eino names an event after the last step of its RunPath when the path is set, and
// RunStep keeps its name unexported, so the step is made through RunStep's own gob
// decoding. Nil when that fails; the event then carries the agent's Eino name.
func runPathOf(name string) []adk.RunStep {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(struct{ AgentName string }{name}); err != nil {
		return nil
	}
	var step adk.RunStep
	if err := step.GobDecode(buf.Bytes()); err != nil || step.String() != name {
		return nil
	}
	return []adk.RunStep{step}
}
