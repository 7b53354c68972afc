package agentrun

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/tools"
)

// Settings is what a middleware needs of Config once its Store is made: the agent's
// identity and role, what it offers, what it gates, whom it tells, and the texts its model
// reads in each language.
type Settings struct {
	Workspace       driver.Workspace
	Language        adk.Language
	Role            tools.Role
	AgentName       string
	PlanSet         string
	Template        string
	Digest          DigestConfig
	ReminderEvery   int
	ToolNames       map[string]string
	ToolPrefix      string
	RequireApproval bool
	GatedTools      []string
	GateAnyHeldStep bool
	OnGatedCall     func(ctx context.Context, call GatedCall)
	OnChange        func(ctx context.Context, c engine.Change)
	RequireEvidence bool
	Verify          func(ctx context.Context, c tools.Completion) error
	OnCost          func(ctx context.Context, r tools.CostReport)
	LeanWorker      bool
	Texts           map[adk.Language]Texts
}

// DigestConfig bounds the plan digest appended to the instruction at the start of each
// run. The digest stays the same between the model calls of a run, so prompt caching keeps
// working, until the run's history is rewritten (a summarization middleware compacted it):
// the model call that first sees the rewritten history reads a fresh digest, whatever the
// order of the agent's handlers (see WrapModel in digest.go).
type DigestConfig struct {
	Disabled bool
	MaxPlans int // default 12
	MaxBytes int // default 1500
}

// Texts are the texts a model of one language reads: every text, and those a lean worker
// reads in their place (Config.LeanWorker).
type Texts struct {
	Full, Lean map[string]string
}

// NewMiddleware returns the middleware of s on store.
func NewMiddleware[M adk.MessageType](s Settings, store *engine.Store) (*Middleware[M], error) {
	m := &Middleware[M]{TypedBaseChatModelAgentMiddleware: &adk.TypedBaseChatModelAgentMiddleware[M]{},
		cfg: s, Store: store, running: &agentNames{}}
	var err error
	if m.gated, err = newGate(s.GatedTools); err != nil {
		return nil, err
	}
	m.files = NewFileGuard(m.Store, s.Workspace)
	if m.gated != nil {
		m.cfg.RequireApproval = true
	}
	if err := tools.CheckPlanSet(s.PlanSet); err != nil {
		return nil, err
	}
	m.actor = agentActor(s.AgentName)
	if m.cfg.Digest.MaxPlans <= 0 {
		m.cfg.Digest.MaxPlans = 12
	}
	if m.cfg.Digest.MaxBytes <= 0 {
		m.cfg.Digest.MaxBytes = 1500
	}
	if m.names, err = tools.PlanToolNames(s.ToolNames, s.ToolPrefix); err != nil {
		return nil, err
	}
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		if m.langs[lang], err = m.toolSet(lang); err != nil {
			return nil, err
		}
	}
	m.templateName = m.names[tools.ToolPlanTemplate]
	m.approvalName = m.names[tools.ToolRequestPlanApproval]
	m.stateKey = &runState{}
	return m, nil
}

// toolSet builds the texts and tools of one language.
func (m *Middleware[M]) toolSet(lang adk.Language) (*toolSet, error) {
	base := m.cfg.Texts[lang].Full
	if m.cfg.LeanWorker {
		base = tools.WithLean(base, m.cfg.Texts[lang].Lean)
	}
	texts, err := tools.RenameTools(base, m.names)
	if err != nil {
		return nil, err
	}
	template := m.cfg.Template
	if strings.TrimSpace(template) == "" {
		template = texts["template"]
	}
	if m.gated != nil {
		// Plan mode: the plan must name what each step may use, so the guide and the
		// not_approved advice teach "(uses …)".
		template = strings.TrimRight(template, "\n") + "\n\n" + texts["template.uses"] + "\n"
		texts = maps.Clone(texts)
		texts["err.not_approved"] = texts["err.not_approved.gated"]
	}
	env := &tools.ToolEnv{Store: m.Store, Workspace: m.cfg.Workspace, Texts: texts, Template: template,
		Agent: m.agentIn, Role: m.roleIn, Sink: m.changeSink(), Listens: m.listening, RequireApproval: m.cfg.RequireApproval}
	env.RequireEvidence, env.Verify = m.cfg.RequireEvidence, m.cfg.Verify
	env.Lean = m.cfg.LeanWorker
	env.Costs, env.Report = m.costsIn, m.reportCost
	if m.cfg.Workspace != nil {
		env.GuardWorkspace(m.cfg.Workspace)
	}
	set := &toolSet{texts: texts, env: env}
	for _, spec := range tools.ToolSpecs() {
		if tools.FileTools[spec.Name] && m.cfg.Workspace == nil || spec.Name == tools.ToolRequestPlanApproval && !m.cfg.RequireApproval {
			continue
		}
		set.tools = append(set.tools, tools.NewPlanTool(spec, env, m.names[spec.Name]))
	}
	return set, nil
}

// toolSet is what a model of one language gets: the texts and the plan tools.
type toolSet struct {
	texts map[string]string
	env   *tools.ToolEnv
	tools []*tools.PlanTool
}

type Middleware[M adk.MessageType] struct {
	*adk.TypedBaseChatModelAgentMiddleware[M]
	cfg   Settings
	Store *engine.Store
	// names are the plan tools' names as this agent's model sees them, by default name.
	names map[string]string
	// langs are the texts and tools of each language; language picks one per run.
	langs [2]*toolSet
	// actor is who Config.AgentName acts as (agentActor).
	actor string
	// gated are the tools that run only under an approved step; nil gates none.
	gated *gate
	// files keeps Eino's filesystem tools out of the plans folders and keys (fs_guard.go).
	files *FileGuard
	// templateName is plan_template's name as this agent's model sees it.
	templateName string
	// approvalName is request_plan_approval's, offered with RequireApproval.
	approvalName string
	// stateKey keys this middleware's runState in a run's context.
	stateKey *runState
	// running are the names of the sub-agents this agent's tool calls are running.
	running *agentNames
	// digests keeps the last digest for the next listing of the same summaries.
	digests digestMemo
}

// language is the language of a run that starts now: Config.Language when it is Chinese,
// else the one adk.SetLanguage chose (see EinoLanguage).
func (m *Middleware[M]) language() adk.Language {
	if m.cfg.Language == adk.LanguageChinese {
		return adk.LanguageChinese
	}
	return EinoLanguage()
}

// set is the tool set of the run of ctx; outside a run, the one of the language now.
func (m *Middleware[M]) set(ctx context.Context) *toolSet {
	if st, ok := ctx.Value(m.stateKey).(*runState); ok && st.set != nil {
		return st.set
	}
	return m.langs[m.language()]
}

// beforeAgent adds the plan tools, the instruction and the digest to a run's, and marks the
// run's context with its role so that runs started inside it know they are sub-agents.
// BeforeAgent (eino_seam_agent.go) is what Eino calls.
func (m *Middleware[M]) beforeAgent(ctx context.Context, runCtx runSetup) (context.Context, runSetup, error) {
	call, _ := ctx.Value(callKey{}).(*callToken)
	mark, marked := ctx.Value(runKey{}).(runMark)
	nested := marked && (mark.nested || mark.call != call)
	ctx = context.WithValue(ctx, runKey{}, runMark{call: call, nested: nested})
	role := m.cfg.Role
	if role == tools.RoleAuto {
		role = tools.RoleOrchestrator
		if nested {
			role = tools.RoleSubAgent
		}
	}
	set := m.langs[m.language()]
	st := &runState{role: role, agent: m.actor, set: set}
	if nested {
		if name := call.agentName(); name != "" {
			st.agent = name
			st.renamed = name != agentActor(delegatedAgent(call))
			st.call = call
			call.runStarted()
		}
	}
	st.exempt, st.exports, st.starters = ExemptTools(ctx, runCtx.Tools)
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
	st.digest.anchor = m.instruction(set.texts, role)
	st.digest.text = m.digest(ctx, set.texts)
	st.digest.inHistory = st.digest.text // a resumed run's may differ: see renewDigest
	next.Instruction = runCtx.Instruction + st.digest.anchor + st.digest.text
	return ctx, next, nil
}

// AfterAgent ends a sub-agent's run: the name it acted as is free again once the tool call
// that started it is over too.
func (m *Middleware[M]) AfterAgent(ctx context.Context, _ *adk.TypedChatModelAgentState[M]) (context.Context, error) {
	if st, ok := ctx.Value(m.stateKey).(*runState); ok && st.call != nil {
		st.mu.Lock()
		call := st.call
		st.call = nil
		st.mu.Unlock()
		call.runEnded()
	}
	return ctx, nil
}

// BeforeModelRewriteState hides plan_template and request_plan_approval from a sub-agent's
// model. The tools stay registered, so a call to one anyway gets tool_not_available instead
// of failing the run.
func (m *Middleware[M]) BeforeModelRewriteState(ctx context.Context, state *adk.TypedChatModelAgentState[M], _ *adk.TypedModelContext[M]) (context.Context, *adk.TypedChatModelAgentState[M], error) {
	if state == nil {
		return ctx, state, nil
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

func (m *Middleware[M]) instruction(texts map[string]string, role tools.Role) string {
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
	return b.String()
}

// listening reports whether a change made with ctx has anyone to go to: the host's OnChange,
// or the events of a run.
func (m *Middleware[M]) listening(ctx context.Context) bool {
	return m.cfg.OnChange != nil || inRun(ctx)
}

// changeSink returns what hears the changes made through this middleware's tools: the
// host's OnChange and, during a run, the run's event stream. Tools attach it only while
// listening holds, so no Change is computed for a call nobody hears.
func (m *Middleware[M]) changeSink() func(context.Context, engine.Change) {
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
func (m *Middleware[M]) emit(ctx context.Context, out any) {
	if !inRun(ctx) {
		return
	}
	ev := &adk.TypedAgentEvent[M]{Output: &adk.TypedAgentOutput[M]{CustomizedOutput: out}}
	if st, ok := ctx.Value(m.stateKey).(*runState); ok && st.renamed {
		ev.AgentName, ev.RunPath = st.agent, runPathOf(st.agent)
	}
	_ = adk.TypedSendEvent[M](ctx, ev)
}

// checkUniqueToolNames refuses an agent that would have two tools of one name, since the
// model could call only one of them, silently. It names every clash at once, and advises
// renaming only this middleware's own plan tools (never another tool, which ToolNames
// cannot rename).
func (m *Middleware[M]) checkUniqueToolNames(ctx context.Context, agentTools []tool.BaseTool) error {
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
