package agentrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"iter"
	"slices"
	"sync/atomic"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/einoplan/plan/internal/document"
)

// The host observes: each call the agent makes of a tool that a step it holds names in
// "(uses …)" or "(proof …)" is recorded for that step, with its outcome (Config.ProofResult
// judges the result; an error never passes), its time and a digest of its arguments and
// result. The record is the Store's (engine/observations.go), never the model's: the name is
// the one the run called, the caller the run's agent, and only a call that ran here (the gate
// let it through, the tool answered) is one. A step counts a call only when the caller held
// it both when the call started and when it returned.

// observing wraps endpoint, the call of the tool name in this agent's run, so the call is
// observed (observe). The middleware's own plan tools are never observed.
func (m *Middleware[M, S]) observing(name string, endpoint adk.InvokableToolCallEndpoint) adk.InvokableToolCallEndpoint {
	if name == "" || slices.Contains(m.planToolNames(), name) {
		return endpoint
	}
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		before := m.heldNaming(ctx, name)
		refused, ok := ctx.Value(refusedKey{}).(*atomic.Bool)
		if !ok {
			refused = &atomic.Bool{}
			ctx = context.WithValue(ctx, refusedKey{}, refused)
		}
		out, err := endpoint(ctx, args, opts...)
		if len(before) > 0 && !refused.Load() {
			m.advance(ctx, name, m.observe(ctx, name, args, out, err, before)) // advance.go
		}
		return out, err
	}
}

// refusedKey keys, in a tool call's context, whether a plan middleware inside the one
// observing it refused the call (refuseInside): such a call never ran, so it proves nothing.
type refusedKey struct{}

// refuseInside marks the call of ctx refused for the plan middlewares observing it from
// outside.
func refuseInside(ctx context.Context) {
	if refused, ok := ctx.Value(refusedKey{}).(*atomic.Bool); ok {
		refused.Store(true)
	}
}

// planToolNames are the names of this middleware's plan tools, as its model sees them.
func (m *Middleware[M, S]) planToolNames() []string {
	names := make([]string, 0, len(m.names))
	for _, n := range m.names {
		names = append(names, n)
	}
	return names
}

// heldStep is a step of a plan, held by the caller; proves says the tool looked for is
// among its "(proof …)" tools.
type heldStep struct {
	plan   string
	number int
	holder string
	proves bool
}

// heldNaming are the live holds of the calling agent on steps that name tool in "(uses …)"
// or "(proof …)".
func (m *Middleware[M, S]) heldNaming(ctx context.Context, tool string) []heldStep {
	var held []heldStep
	for cur, s := range m.callerHolds(ctx) {
		if document.Watches(s, tool) {
			held = append(held, heldStep{cur.Name, s.Number, s.Holder, slices.Contains(s.Proof, tool)})
		}
	}
	return held
}

// callerHolds are the live holds of the calling agent: none when it has no name or the
// plans cannot be listed.
func (m *Middleware[M, S]) callerHolds(ctx context.Context) iter.Seq2[*document.Plan, document.Step] {
	none := func(func(*document.Plan, document.Step) bool) {}
	holder := document.HolderName(m.agentIn(ctx))
	if holder == "" {
		return none
	}
	plans, _, err := m.Store.Summaries(ctx)
	if err != nil {
		return none
	}
	return m.liveHolds(ctx, plans, holder)
}

// observe records the call of tool with args, which returned out and err, for each step of
// before that the caller still holds, and returns those steps when the call passed.
func (m *Middleware[M, S]) observe(ctx context.Context, tool, args, out string, err error, before []heldStep) (passedFor []heldStep) {
	o := document.Observation{Tool: tool, OK: err == nil && m.passed(tool, out), At: m.Store.Now().UTC(), Digest: callDigest(args, out)}
	for _, h := range m.heldNaming(ctx, tool) {
		if slices.Contains(before, h) {
			m.Store.Observe(h.plan, h.number, h.holder, o)
			if o.OK {
				passedFor = append(passedFor, h)
			}
		}
	}
	return passedFor
}

// passed is Config.ProofResult's judgement of a call that returned out without an error; a
// judge that panics fails the call.
func (m *Middleware[M, S]) passed(tool, out string) (ok bool) {
	if m.cfg.ProofResult == nil {
		return true
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return m.cfg.ProofResult(tool, out)
}

// callDigest is the first 12 hex digits of the SHA-256 of args, a zero byte and out.
func callDigest(args, out string) string {
	h := sha256.New()
	h.Write([]byte(args))
	h.Write([]byte{0})
	h.Write([]byte(out))
	return hex.EncodeToString(h.Sum(nil))[:12]
}
