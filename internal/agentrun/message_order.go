package agentrun

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
)

// The tool calls of one model message take effect in the order the model listed them when a
// plan tool is among them. Eino starts a message's calls at once, so a work call listed after
// update_plan_step could be judged by the gate before the step it needs is held, and a
// completion listed after a work call could end the step the work was meant to run under.
// AfterModelRewriteState records the message's order; each call, on reaching this
// middleware, waits for the calls before it that must precede it: a plan call for every call
// before it, any other call for the plan calls before it. Calls of a message without a plan
// tool, and calls of tools neither offered to the model nor plan tools, wait for nothing.
//
// Waiting cannot deadlock: a call waits only for calls listed before it, so the waits form
// no cycle; a call that has reached this middleware always ends (its end is deferred, on an
// error, an interrupt or a panic alike); one that has not reached it within arrivalGrace of
// its successor's arrival (an outer handler refused, interrupted or dropped it, or a resumed
// run skipped it) is no longer waited for; a cancelled context ends every wait. Nothing runs
// in the background, and a run keeps only its last message's order.
//
// A streamed call is over for its successors once its stream is handed back: the tools node
// reads streams only after every call of the message has returned one. A resumed run reruns
// its interrupted calls as Eino runs them: no model call lists them again.

// arrivalGrace bounds how long a call waits for an earlier call of its message to reach this
// middleware. Eino starts every call of a message at once, so one that has not arrived by
// then was stopped by an outer handler or is not run again.
const arrivalGrace = 2 * time.Second

// callOrder is the order of the calls of a run's last model message, by call ID; empty when
// the message needs none.
type callOrder struct {
	mu    sync.Mutex
	calls map[string]*orderedCall
	// listed: a model message of this run was read (not so for calls a resumed run reruns);
	// planCall: it lists a call of a plan tool (of any plan middleware of the run); held:
	// the steps the caller held when it came, which its calls may advance, each once.
	listed, planCall bool
	held             []heldStep
}

// read notes a new model message of the run: whether it lists a plan tool call, and the
// steps the caller held when it came.
func (o *callOrder) read(planCall bool, held []heldStep) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.listed, o.planCall, o.held = true, planCall, held
}

// claimAdvance reports whether a call of the run's last model message may advance h on its
// proof: the message was read, lists no plan tool call, and h was held when it came (the
// model listed its calls knowing the steps it held then) and was not advanced by an earlier
// call of it. A claim is granted once.
func (o *callOrder) claimAdvance(h heldStep) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	i := slices.IndexFunc(o.held, func(s heldStep) bool { return s.plan == h.plan && s.number == h.number && s.holder == h.holder })
	if !o.listed || o.planCall || i < 0 {
		return false
	}
	o.held = slices.Delete(o.held, i, i+1)
	return true
}

// orderedCall is one call of an ordered message: arrived closes when it reaches this
// middleware, done when it is over; after are the calls it waits for.
type orderedCall struct {
	after   []*orderedCall
	arrived chan struct{}
	done    chan struct{}
	// reached is set under callOrder.mu by the first arrival; a second (an outer handler
	// running the call again) waits for nothing.
	reached bool
	finish  sync.Once
}

// list records the order of calls, those of tools neither offered nor plan tools left out (no
// middleware sees them: Eino has no such tool); it replaces the previous
// message's, whose calls are all over by the time the model answers again.
func (o *callOrder) list(calls []schema.ToolCall, offered map[string]bool, isPlan func(string) bool) {
	var ordered []*orderedCall
	byID := make(map[string]*orderedCall, len(calls))
	var plans []*orderedCall
	anyPlan := false
	for _, call := range calls {
		if !offered[call.Function.Name] && !isPlan(call.Function.Name) {
			continue
		}
		if call.ID == "" || byID[call.ID] != nil {
			byID = nil // calls that cannot be told apart are not ordered
			break
		}
		c := &orderedCall{arrived: make(chan struct{}), done: make(chan struct{})}
		if isPlan(call.Function.Name) {
			anyPlan = true
			c.after = append([]*orderedCall(nil), ordered...) // a plan call follows every call before it
			plans = append(plans, c)
		} else {
			c.after = append([]*orderedCall(nil), plans...) // other calls follow the plan calls before them
		}
		ordered = append(ordered, c)
		byID[call.ID] = c
	}
	if !anyPlan || len(ordered) < 2 {
		byID = nil
	}
	o.mu.Lock()
	o.calls = byID
	o.mu.Unlock()
}

// arrive marks the call id as having reached this middleware and returns it, or nil when it
// is not ordered or already arrived once.
func (o *callOrder) arrive(id string) *orderedCall {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := o.calls[id]
	if c == nil || c.reached {
		return nil
	}
	c.reached = true
	close(c.arrived)
	return c
}

// waitTurn returns once every call c waits for is over, has not arrived within arrivalGrace,
// or ctx is done.
func (c *orderedCall) waitTurn(ctx context.Context) {
	var grace *time.Timer
	expired := false
	for _, p := range c.after {
		select {
		case <-p.arrived:
		default:
			if expired {
				continue
			}
			if grace == nil {
				grace = time.NewTimer(arrivalGrace)
				defer grace.Stop()
			}
			select {
			case <-p.arrived:
			case <-grace.C:
				expired = true
				continue
			case <-ctx.Done():
				return
			}
		}
		select {
		case <-p.done:
		case <-ctx.Done():
			return
		}
	}
}

// over marks c over, once.
func (c *orderedCall) over() {
	c.finish.Do(func() { close(c.done) })
}

// awaitTurn waits until the calls listed before the call tc in its message that must precede
// it are over, and returns what marks this call over (to be deferred).
func (m *Middleware[M, S]) awaitTurn(ctx context.Context, tc *adk.ToolContext) (over func()) {
	st, _ := ctx.Value(m.stateKey).(*runState)
	if st == nil || tc == nil || tc.CallID == "" {
		return func() {}
	}
	c := st.order.arrive(tc.CallID)
	if c == nil {
		return func() {}
	}
	c.waitTurn(ctx)
	return c.over
}

// AfterModelRewriteState records the order of the calls of the model's answer (see above).
func (m *Middleware[M, S]) AfterModelRewriteState(ctx context.Context, state *adk.TypedChatModelAgentState[M], _ *adk.TypedModelContext[M]) (context.Context, *adk.TypedChatModelAgentState[M], error) {
	st, _ := ctx.Value(m.stateKey).(*runState)
	if st == nil {
		return ctx, state, nil
	}
	st.reminders.delivered() // reminders.go
	if state == nil || len(state.Messages) == 0 {
		return ctx, state, nil
	}
	var calls []schema.ToolCall
	if am, ok := any(state.Messages[len(state.Messages)-1]).(*schema.Message); ok && am != nil && am.Role == schema.Assistant {
		calls = am.ToolCalls
	}
	offered := make(map[string]bool, len(state.ToolInfos)+len(state.DeferredToolInfos))
	for _, info := range append(slices.Clip(state.ToolInfos), state.DeferredToolInfos...) {
		if info != nil {
			offered[info.Name] = true
		}
	}
	isPlan, planCalled, held := m.orderedAsPlan(ctx, st, calls) // advance.go
	st.order.list(calls, offered, isPlan)
	st.order.read(planCalled, held)
	return ctx, state, nil
}
