package plan

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// GatedCall reports one call of a gated tool (Config.GatedTools), before it runs: who called
// what, and under which hold. A call runs only while Agent holds step Step of plan Plan,
// approved at Revision, its revision when the call was checked; a refused call has Allowed
// false, Reason saying why, and Plan, Step and Revision of the hold or plan it lacked the
// approval of, when there is one.
type GatedCall struct {
	Tool  string `json:"tool"`
	Agent string `json:"agent"` // the run's agent name: "worker", or "worker·2" for a second run at once
	// Allowed: the tool runs.
	Allowed bool `json:"allowed"`
	// Reason is why a call was refused: "no_agent" (the run has no name to hold steps by),
	// "no_plan", "not_approved" (no plan is approved), "hold_not_approved" (the step held
	// is on a plan not approved at its current revision), "no_step" (nothing held),
	// "unavailable" (the plans could not be read) or "over_budget" (the step held, or its
	// plan, went over its budget: budgets.go). "" when Allowed.
	Reason   string `json:"reason,omitempty"`
	Plan     string `json:"plan,omitempty"`
	Step     int    `json:"step,omitempty"`
	StepText string `json:"step_text,omitempty"`
	Revision int64  `json:"revision,omitempty"`
}

func init() {
	schema.RegisterName[GatedCall]("einoplan_gated_call") // events are kept in checkpoints
}

// The reasons a gated call is refused.
const (
	gateNoAgent         = "no_agent"
	gateNoPlan          = "no_plan"
	gateNotApproved     = "not_approved"
	gateHoldNotApproved = "hold_not_approved"
	gateNoStep          = "no_step"
	gateUnavailable     = "unavailable"
)

// gate is Config.GatedTools: the tools named, or with all every tool that is not a plan
// tool and does not start sub-agents.
type gate struct {
	all   bool
	names map[string]bool
}

func newGate(list []string) (*gate, error) {
	if len(list) == 0 {
		return nil, nil
	}
	g := &gate{names: map[string]bool{}}
	for _, n := range list {
		switch {
		case n == "*":
			g.all = true
		case strings.TrimSpace(n) == "":
			return nil, fmt.Errorf("plan: GatedTools has an empty name")
		default:
			g.names[n] = true
		}
	}
	for _, n := range defaultToolNames {
		if g.names[n] {
			return nil, fmt.Errorf("plan: GatedTools names %q, a plan tool: plan tools are never gated", n)
		}
	}
	return g, nil
}

// gates reports whether a call of the tool name in the run of ctx is gated.
func (m *middleware[M]) gates(ctx context.Context, name string) bool {
	if m.gated == nil {
		return false
	}
	for _, ours := range m.names {
		if name == ours {
			return false
		}
	}
	if m.gated.names[name] {
		return true
	}
	if !m.gated.all {
		return false
	}
	if st, ok := ctx.Value(m.stateKey).(*runState); ok {
		st.mu.Lock()
		defer st.mu.Unlock()
		return !st.exempt[name]
	}
	return true
}

// check decides a call of the tool name: ok when it may run; otherwise the result the model
// gets instead. Both are reported to the host.
func (m *middleware[M]) check(ctx context.Context, name string) (refusal string, ok bool) {
	if !m.gates(ctx, name) {
		return "", true
	}
	call := m.decide(ctx, name)
	if m.cfg.OnGatedCall != nil {
		m.cfg.OnGatedCall(ctx, call)
	}
	m.emit(ctx, call)
	if call.Allowed {
		return "", true
	}
	return m.refusal(ctx, call), false
}

// decide finds the hold a call of tool runs under: a step in progress held by the calling
// agent on a plan approved at its current revision, in the most recently updated plan that
// has one.
func (m *middleware[M]) decide(ctx context.Context, tool string) GatedCall {
	call := GatedCall{Tool: tool, Agent: m.agentIn(ctx)}
	if call.Agent == "" {
		call.Reason = gateNoAgent
		return call
	}
	listing, err := m.store.List(ctx)
	if err != nil {
		call.Reason = gateUnavailable
		return call
	}
	plans := make([]Summary, len(listing.Plans))
	copy(plans, listing.Plans)
	sort.SliceStable(plans, func(i, j int) bool { return plans[i].UpdatedAt.After(plans[j].UpdatedAt) })
	holder := holderName(call.Agent)
	var held, approved *Summary
	for i := range plans {
		p := &plans[i]
		if p.Approval != nil && approved == nil {
			approved = p
		}
		if p.Progress.InProgress == 0 {
			continue
		}
		cur, err := m.store.Get(ctx, p.Name)
		if err != nil {
			continue
		}
		for _, s := range stepsOf(cur.Content) {
			if holderOf(s) != holder || !m.store.holdLive(cur, s) {
				continue // not the caller's, or its lease ran out (another agent may take it)
			}
			if cur.Approval != nil {
				call.Allowed, call.Plan, call.Step, call.Revision = true, cur.Name, s.Number, cur.Revision
				call.StepText, _ = splitHolder(s.Text)
				return m.budgetGate(ctx, cur, s, call)
			}
			if held == nil {
				held = &Summary{Name: cur.Name, Revision: cur.Revision, CurrentStep: &Step{Number: s.Number}}
			}
		}
	}
	switch {
	case held != nil:
		call.Reason, call.Plan, call.Step, call.Revision = gateHoldNotApproved, held.Name, held.CurrentStep.Number, held.Revision
	case approved != nil:
		call.Reason, call.Plan, call.Revision = gateNoStep, approved.Name, approved.Revision
	case len(plans) == 0:
		call.Reason = gateNoPlan
	default:
		call.Reason, call.Plan, call.Revision = gateNotApproved, plans[0].Name, plans[0].Revision
	}
	return call
}

// refusal is the result a refused call gives the model: not_approved, and what to do next in
// the model's language. A sub-agent, which cannot ask for approval itself, is told to report
// back instead.
func (m *middleware[M]) refusal(ctx context.Context, call GatedCall) string {
	texts := m.set(ctx).texts
	key := "gate." + call.Reason
	if m.roleIn(ctx) == RoleSubAgent {
		if _, ok := texts[key+".sub"]; ok {
			key += ".sub"
		}
	}
	msg := strings.NewReplacer("{tool}", call.Tool, "{name}", call.Plan, "{step}", itoa(call.Step),
		"{rev}", fmt.Sprint(call.Revision), "{agent}", call.Agent).Replace(texts[key])
	s, _ := resultAPI.MarshalToString(map[string]errorBody{"error": {Code: gateCode(call.Reason), Message: msg, CurrentRevision: call.Revision}})
	return s
}

// exemptTools are the tools of a run that "*" does not gate: plan tools of any middleware,
// and the tools Eino's adk package makes (agent tools, which start sub-agents, and
// transfer and exit).
func exemptTools(ctx context.Context, tools []tool.BaseTool) map[string]bool {
	out := map[string]bool{}
	for _, t := range tools {
		if t == nil {
			continue
		}
		_, plan := t.(*planTool)
		typ := reflect.TypeOf(t)
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if !plan && typ.PkgPath() != "github.com/cloudwego/eino/adk" {
			continue
		}
		if info, err := t.Info(ctx); err == nil && info != nil {
			out[info.Name] = true
		}
	}
	return out
}

// noteStarters records the tools among infos that declare a subagent_type parameter: they
// start sub-agents (a deep agent's task tool, or whichever tool a later Eino uses), so the
// runs they start are named by that argument, and "*" does not gate them.
func (st *runState) noteStarters(infos []*schema.ToolInfo) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, info := range infos {
		if info == nil || st.starters[info.Name] || !declaresSubagentType(info) {
			continue
		}
		starters := make(map[string]bool, len(st.starters)+1)
		for k := range st.starters {
			starters[k] = true
		}
		starters[info.Name] = true
		st.starters = starters // calls already under way keep the map they read
		if st.exempt == nil {
			st.exempt = map[string]bool{}
		}
		st.exempt[info.Name] = true
	}
}

func declaresSubagentType(info *schema.ToolInfo) bool {
	if info.ParamsOneOf == nil {
		return false
	}
	js, err := info.ParamsOneOf.ToJSONSchema()
	if err != nil || js == nil || js.Properties == nil {
		return false
	}
	_, ok := js.Properties.Get("subagent_type")
	return ok
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
