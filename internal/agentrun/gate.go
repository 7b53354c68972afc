package agentrun

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/tools"
)

// The reasons a gated call is refused.
const (
	gateNoAgent         = "no_agent"
	gateNoPlan          = "no_plan"
	gateNotApproved     = "not_approved"
	gateHoldNotApproved = "hold_not_approved"
	gateToolNotNamed    = "tool_not_named"
	gateNoStep          = "no_step"
	gateUnavailable     = "unavailable"
)

// gates reports whether a call of the tool name in the run of ctx is gated. Under "*" every
// tool is, except plan tools, the tools Config.UngatedTools leaves free, adk's exit and
// transfer tools, and a call of one of Eino's agent starters whose sub-agent has a plan
// middleware gating every tool itself (starters.go).
func (m *Middleware[M, S]) gates(ctx context.Context, name string) bool {
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
	if !m.gated.all || m.gated.free[name] {
		return false
	}
	st, ok := ctx.Value(m.stateKey).(*runState)
	if !ok {
		return true
	}
	st.mu.Lock()
	exempt := st.exempt[name]
	st.mu.Unlock()
	if exempt {
		return false
	}
	call, _ := ctx.Value(callKey{}).(*callToken)
	return call == nil || call.tool != name || !call.startsGuardedAgent()
}

// check decides a call of the tool name: ok when it may run; otherwise the result the model
// gets instead. Both are reported to the host.
func (m *Middleware[M, S]) check(ctx context.Context, name string) (refusal string, ok bool) {
	if !m.gates(ctx, name) && !m.gatesExport(ctx, name) {
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

// gatesExport reports whether name is an export_plan_to_file under GatedTools: this
// middleware's, or another plan middleware's of the run, listed before it (exports) or after
// it (peers). It writes a file as a file tool does, so it passes the same gate, under the
// name its model sees.
func (m *Middleware[M, S]) gatesExport(ctx context.Context, name string) bool {
	if m.gated == nil {
		return false
	}
	if name == m.names[tools.ToolExportPlanToFile] {
		return true
	}
	st, ok := ctx.Value(m.stateKey).(*runState)
	if !ok {
		return false
	}
	st.mu.Lock()
	exported := st.exports[name]
	st.mu.Unlock()
	return exported || st.peers.exported(name)
}

// decide finds the hold a call of tool runs under: a step in progress held by the calling
// agent that names tool in its "(uses …)" (any held step with Config.GateAnyHeldStep), on
// a plan approved at its current revision, in the most recently updated plan that has one.
func (m *Middleware[M, S]) decide(ctx context.Context, tool string) GatedCall {
	call := GatedCall{Tool: tool, Agent: m.agentIn(ctx)}
	if call.Agent == "" {
		call.Reason = gateNoAgent
		return call
	}
	shared, _, err := m.Store.Summaries(ctx) // read only: the list cache's own
	if err != nil {
		call.Reason = gateUnavailable
		return call
	}
	plans := slices.Clone(shared)
	sort.SliceStable(plans, func(i, j int) bool { return plans[i].UpdatedAt.After(plans[j].UpdatedAt) })
	holder := document.HolderName(call.Agent)
	var approved *document.Summary
	for _, p := range plans {
		if p.Approval != nil {
			approved = p
			break
		}
	}
	// held is the first hold of a plan not approved (one naming tool first); unnamed the
	// first hold of an approved plan that does not name tool.
	var held, unnamed *GatedCall
	heldNames := false
	for cur, s := range m.liveHolds(ctx, plans, holder) {
		names := m.cfg.GateAnyHeldStep || slices.Contains(s.Uses, tool)
		hold := call
		hold.Plan, hold.Step, hold.Revision, hold.Uses = cur.Name, s.Number, cur.Revision, slices.Clone(s.Uses)
		switch {
		case cur.Approval != nil && names:
			hold.Allowed = true
			hold.StepText = s.WithoutHolder()
			return m.budgetGate(ctx, cur, s, hold)
		case cur.Approval != nil:
			if unnamed == nil {
				unnamed = &hold
			}
		case held == nil || names && !heldNames:
			held, heldNames = &hold, names
		}
	}
	switch {
	case held != nil && heldNames:
		held.Reason = gateHoldNotApproved
		return *held
	case unnamed != nil:
		unnamed.Reason = gateToolNotNamed
		return *unnamed
	case held != nil:
		held.Reason = gateHoldNotApproved
		return *held
	case approved != nil:
		call.Reason, call.Plan, call.Revision = gateNoStep, approved.Name, approved.Revision
	case len(plans) == 0:
		call.Reason = gateNoPlan
	default:
		call.Reason, call.Plan, call.Revision = gateNotApproved, plans[0].Name, plans[0].Revision
	}
	return call
}

// liveHolds yields the steps of plans that holder holds, each with its plan as read, in the
// order of plans: a step whose lease ran out is not the holder's any more (another agent may
// take it), and a plan that cannot be read holds nothing.
func (m *Middleware[M, S]) liveHolds(ctx context.Context, plans []*document.Summary, holder string) iter.Seq2[*document.Plan, document.Step] {
	return func(yield func(*document.Plan, document.Step) bool) {
		for _, p := range plans {
			if p.Progress.InProgress == 0 {
				continue
			}
			cur, err := m.Store.Get(ctx, p.Name)
			if err != nil {
				continue
			}
			for _, s := range document.StepsOf(cur.Content) {
				if s.Holder == holder && m.Store.HoldLive(cur, s) && !yield(cur, s) {
					return
				}
			}
		}
	}
}

// refusal is the result a refused call gives the model: not_approved (over_budget for a budget), and what to do next in
// the model's language. A sub-agent, which cannot ask for approval itself, is told to report
// back instead.
func (m *Middleware[M, S]) refusal(ctx context.Context, call GatedCall) string {
	texts := m.set(ctx).texts
	key := "gate." + call.Reason
	if call.Over == "plan" {
		key += ".plan" // the plan's budget ran out, not the step's
	}
	if m.roleIn(ctx) == tools.RoleSubAgent {
		if _, ok := texts[key+".sub"]; ok {
			key += ".sub"
		}
	}
	uses := texts["gate.uses_none"]
	if len(call.Uses) > 0 {
		uses = strings.Join(call.Uses, ", ")
	}
	msg := strings.NewReplacer("{tool}", call.Tool, "{name}", call.Plan, "{step}", tools.Itoa(call.Step),
		"{rev}", fmt.Sprint(call.Revision), "{agent}", call.Agent, "{uses}", uses).Replace(texts[key])
	s, _ := tools.ResultAPI.MarshalToString(map[string]tools.ErrorBody{"error": {Code: gateCode(call.Reason), Message: msg, CurrentRevision: call.Revision}})
	return s
}

// exemptTools are the tools of a run that "*" never gates: plan tools of any middleware, and
// adk's exit and transfer_to_agent. starters are the run's agent starters, by name
// (starters.go). Tools a later handler adds are neither: "*" gates them, and a run started
// in one acts as the tool's name.
func exemptTools(ctx context.Context, agentTools []tool.BaseTool) (exempt, exports map[string]bool, starters map[string]*starter) {
	exempt, exports = map[string]bool{}, map[string]bool{}
	for _, t := range agentTools {
		if t == nil {
			continue
		}
		pt, plan := t.(*tools.PlanTool)
		control := einoControlTool(t)
		if !plan && !control && !isStarterType(reflect.TypeOf(t)) {
			continue // the tool's Info is not needed: "*" gates it and it starts no agent
		}
		info, err := t.Info(ctx)
		if err != nil || info == nil {
			continue
		}
		if plan && pt.Spec.Name == tools.ToolExportPlanToFile {
			exports[info.Name] = true // it writes a Workspace file: never exempt
			continue
		}
		if plan || control {
			exempt[info.Name] = true
			continue
		}
		if s := starterOf(t, info.Name); s != nil {
			if starters == nil {
				starters = map[string]*starter{}
			}
			starters[info.Name] = s
		}
	}
	return exempt, exports, starters
}

func init() {
	schema.RegisterName[GatedCall]("einoplan_gated_call") // events are kept in checkpoints
}

// What the gate and the digest hand to a host, declared in package api.
type (
	GatedCall    = api.GatedCall
	DigestConfig = api.DigestConfig
)
