package agentrun

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/tools"
)

// The middleware's hooks around an agent's run: its start (the tools, the instruction and
// the digest it adds), the tools its model sees, and its end.

// runSetup is what the middleware reads and writes of a run's context in BeforeAgent: the
// instruction and the tools, every other field left as Eino set it.
type runSetup struct {
	Instruction string
	Tools       []tool.BaseTool
}

// beforeAgent adds the plan tools, the instruction and the digest to a run's, and marks the
// run's context with its role so that runs started inside it know they are sub-agents.
// BeforeAgent (eino_seam_agent.go) is what Eino calls.
func (m *Middleware[M, S]) beforeAgent(ctx context.Context, runCtx runSetup) (context.Context, runSetup, error) {
	call, _ := ctx.Value(callKey{}).(*callToken)
	mark, marked := ctx.Value(runKey{}).(runMark)
	nested := marked && (mark.nested || mark.call != call)
	peers := &runPeers{}
	if marked && mark.call == call && mark.peers != nil {
		peers = mark.peers // the same run, seen by a plan middleware listed earlier
	}
	ctx = context.WithValue(ctx, runKey{}, runMark{call: call, nested: nested, peers: peers})
	role := m.cfg.Role
	if role == tools.RoleAuto {
		role = tools.RoleOrchestrator
		if nested {
			role = tools.RoleSubAgent
		}
	}
	set := m.langs[m.language()]
	st := &runState{role: role, agent: m.actor, set: set, peers: peers}
	if nested {
		if name := call.agentName(); name != "" {
			st.agent = name
			st.renamed = name != agentActor(delegatedAgent(call))
			st.call = call
			call.runStarted()
		}
	}
	st.exempt, st.exports, st.starters = exemptTools(ctx, runCtx.Tools)
	st.fileTools = renamedFileTools(ctx, runCtx.Tools)
	ctx = context.WithValue(ctx, m.stateKey, st)

	next := runCtx
	next.Tools = make([]tool.BaseTool, 0, len(runCtx.Tools)+len(set.tools))
	next.Tools = append(next.Tools, runCtx.Tools...)
	for _, t := range set.tools {
		next.Tools = append(next.Tools, t)
	}
	if err := m.checkUniqueToolNames(ctx, next.Tools); err != nil {
		st.call.runEnded()
		return ctx, runCtx, err
	}
	st.early = next.Tools
	peers.addPlanTools(m.names)
	if m.cfg.Workspace != nil { // export_plan_to_file is offered
		peers.addExport(m.names[tools.ToolExportPlanToFile])
	}
	st.digest.anchor = m.instruction(set.texts, role)
	st.digest.text = m.digest(ctx, set.texts)
	st.digest.inHistory = st.digest.text // a resumed run's may differ: see renewDigest
	next.Instruction = runCtx.Instruction + st.digest.anchor + st.digest.text
	m.warnKeyLinks(ctx)
	return ctx, next, nil
}

// AfterAgent ends a sub-agent's run: the name it acted as is free again once the tool call
// that started it is over too.
func (m *Middleware[M, S]) AfterAgent(ctx context.Context, _ *adk.TypedChatModelAgentState[M]) (context.Context, error) {
	if st, ok := ctx.Value(m.stateKey).(*runState); ok && st.call != nil {
		st.mu.Lock()
		call := st.call
		st.call = nil
		st.mu.Unlock()
		call.runEnded()
	}
	return ctx, nil
}

// BeforeModelRewriteState checks, at a run's first model call, the tools its model is
// offered (run_tools_check.go), and hides plan_template and request_plan_approval from a
// sub-agent's model. The tools stay registered, so a call to one anyway gets
// tool_not_available instead of failing the run.
func (m *Middleware[M, S]) BeforeModelRewriteState(ctx context.Context, state *adk.TypedChatModelAgentState[M], _ *adk.TypedModelContext[M]) (context.Context, *adk.TypedChatModelAgentState[M], error) {
	if state == nil {
		return ctx, state, nil
	}
	if st, ok := ctx.Value(m.stateKey).(*runState); ok {
		if err := m.checkRunTools(ctx, st, state.ToolInfos); err != nil {
			return ctx, state, err
		}
	}
	if m.roleIn(ctx) != tools.RoleSubAgent && !m.cfg.LeanWorker {
		return ctx, state, nil
	}
	kept := make([]*schema.ToolInfo, 0, len(state.ToolInfos))
	for _, info := range state.ToolInfos {
		if info == nil || info.Name != m.templateName && info.Name != m.approvalName && !m.leanHides(info.Name) {
			kept = append(kept, info)
		}
	}
	if len(kept) == len(state.ToolInfos) {
		return ctx, state, nil
	}
	next := *state
	next.ToolInfos = kept
	return ctx, &next, nil
}

// leanHides reports whether the model of a lean worker does not see the tool called name.
func (m *Middleware[M, S]) leanHides(name string) bool {
	if !m.cfg.LeanWorker {
		return false
	}
	for def, shown := range m.names {
		if shown == name {
			return !tools.LeanTools[def]
		}
	}
	return false
}

func (m *Middleware[M, S]) instruction(texts map[string]string, role tools.Role) string {
	var b strings.Builder
	b.WriteString(tools.WithPlanSet(texts["instruction"], texts, m.cfg.PlanSet))
	if m.cfg.Workspace != nil {
		b.WriteString(texts["instruction.files"])
	}
	if role == tools.RoleOrchestrator && !m.cfg.LeanWorker {
		b.WriteString(texts["instruction.template"])
	}
	if m.cfg.RequireApproval && role == tools.RoleOrchestrator && !m.cfg.LeanWorker {
		b.WriteString(texts["instruction.approval"])
	} else if m.cfg.RequireApproval {
		b.WriteString(texts["instruction.approval.sub"])
	}
	if m.gated != nil {
		b.WriteString(texts["instruction.gated"])
	}
	if m.cfg.RequireEvidence {
		b.WriteString(texts["instruction.evidence"])
	}
	return b.String()
}

// checkUniqueToolNames refuses an agent that would have two tools of one name, since the
// model could call only one of them, silently. It names every clash at once, and advises
// renaming only this middleware's own plan tools (never another tool, which ToolNames
// cannot rename).
func (m *Middleware[M, S]) checkUniqueToolNames(ctx context.Context, agentTools []tool.BaseTool) error {
	ours := map[string]string{} // the name the model sees → the default name
	for n, to := range m.names {
		if tools.FileTools[n] && m.cfg.Workspace == nil || n == tools.ToolRequestPlanApproval && !m.cfg.RequireApproval {
			continue
		}
		ours[to] = n
	}
	count := make(map[string]int, len(agentTools))
	var order []string
	for _, t := range agentTools {
		info, err := t.Info(ctx)
		if err != nil || info == nil {
			continue
		}
		if count[info.Name] == 0 {
			order = append(order, info.Name)
		}
		count[info.Name]++
	}
	var clashes []string
	advice := map[string]string{}
	for _, name := range order {
		if count[name] < 2 {
			continue
		}
		clashes = append(clashes, fmt.Sprintf("%q", name))
		if def, ok := ours[name]; ok {
			advice[def] = "my_" + def
		}
	}
	if len(clashes) == 0 {
		return nil
	}
	msg := fmt.Sprintf("plan: the agent would get two tools named %s", strings.Join(clashes, ", "))
	if len(advice) == 0 {
		return fmt.Errorf("%s; none is a plan tool of this middleware: rename the other tools", msg)
	}
	keys := make([]string, 0, len(advice))
	for k := range advice {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = fmt.Sprintf("%q: %q", k, advice[k])
	}
	return fmt.Errorf("%s; when an agent has two plan middlewares, give one of them Config.ToolPrefix (e.g. %q) "+
		"or Config.ToolNames (e.g. {%s}), and Config.PlanSet to tell their plans apart", msg, "my_", strings.Join(pairs, ", "))
}
