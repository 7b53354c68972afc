package plan

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/tools"
)

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

// Config configures the middleware.
type Config struct {
	// Backend is where plans live. Required unless Store is set.
	Backend Backend
	// BaseDir is the folder of plans inside Backend; default "/plans". "plans", "/plans"
	// and "/plans/" are one folder.
	BaseDir string
	// Store, when set, is used instead of a Store made from Backend, BaseDir and
	// MaxContentBytes (which must then be unset). Middlewares and host code given one *Store
	// share its lock and cache explicitly, which matters for a Backend whose storage the
	// Store cannot recognise by itself (no Unwrap, no capability, a value that is not
	// comparable).
	Store *Store
	// ApprovalKey is StoreConfig.ApprovalKey of the Store made from Backend (unset with
	// Store): the host's key approvals are sealed with, which no file of the storage holds.
	ApprovalKey []byte
	// Workspace is the agent's own file system. When set, export_plan_to_file and
	// update_plan_from_file are offered; they never reach outside it. Give it the backend of
	// Eino's filesystem tools too: the middleware then reads their paths as its paths when it
	// keeps them out of the plans folders and keys (it always reads them as host paths).
	Workspace Workspace
	// Language picks the texts the model sees. adk.LanguageChinese is always Chinese; the
	// zero value, adk.LanguageEnglish, follows adk.SetLanguage as Eino's own middlewares do:
	// English unless the program chose Chinese, read at the start of each run.
	Language adk.Language
	// Role decides who gets plan_template and request_plan_approval; default RoleAuto. An
	// explicit RoleOrchestrator or RoleSubAgent holds in every call, inside a run or not.
	Role Role
	// AgentName is who this agent's tool calls act as: the author of plans it creates without
	// one, who the history says made its changes, and the holder of the steps it moves to
	// in_progress. It is a security principal: every run of one name (two sessions, two
	// processes, two hosts on one storage) holds the same steps, and a step held by it lets
	// each of them run gated tools, so give agents that must not share holds different
	// names. A sub-agent's run acts instead as the agent that Eino's starter really runs: the
	// agent of an adk.NewAgentTool, or the sub-agent a deep agent's task tool starts, read from
	// its arguments as the task tool reads them. Any other tool that runs an agent names that
	// run after itself, never after its arguments. A second run of one sub-agent at once acts
	// as "name·2" (see GatedCall). With no name, steps it takes are held by nobody, so a
	// gated tool never runs.
	AgentName string
	// MaxContentBytes caps a plan's body; default 1 MiB (a given Store's own cap otherwise).
	MaxContentBytes int
	// HistoryLimit keeps that many revisions of each plan (StoreConfig.HistoryLimit: 0 is
	// DefaultHistoryLimit, negative keeps none), which lets read_plan's since_revision return
	// only what changed and stale step moves of other steps apply without a conflict.
	HistoryLimit int
	// ClaimTTL is how long a hold on a step lasts without renewal (StoreConfig.ClaimTTL);
	// 0: holds never expire. With Store set, the Store's own ClaimTTL applies.
	ClaimTTL time.Duration
	// ReminderEvery is how many model calls at least separate two reminders of changes
	// others made to the plans this run works on (reminders.go); 0 means
	// 3, a negative value turns reminders off.
	ReminderEvery int
	// Template replaces the built-in plan writing guide that plan_template returns.
	Template string
	// Digest bounds the digest of current plans added to the instruction.
	Digest DigestConfig
	// ToolNames renames plan tools: default name (ToolWritePlan, ...) → the name this agent's
	// model sees. Every text the model reads uses the new names. Needed when one agent has two
	// plan middlewares (say team plans and personal plans): BeforeAgent refuses an agent that
	// would end up with two tools of one name, naming every clash at once.
	ToolNames map[string]string
	// ToolPrefix is put before the name of every plan tool that ToolNames does not rename:
	// "my_" offers my_write_plan, my_read_plan, ... .
	ToolPrefix string
	// PlanSet names the plans this middleware serves in the instruction and the digest
	// ("team plans", "my plans"), so two plan middlewares on one agent give two sections
	// the model tells apart. One line, at most 64 bytes.
	PlanSet string
	// RequireApproval makes update_plan_step refuse (not_approved) to move any step of a plan
	// that a person has not approved, and offers the orchestrator request_plan_approval,
	// which pauses the run with an Eino interrupt until a person decides (the Runner needs a
	// CheckPointStore to resume it; see ApprovalRequest and ApprovalDecision). Off by default;
	// GatedTools turns it on.
	RequireApproval bool
	// GatedTools names tools of the agent, other than plan tools, that have side effects: a
	// call of one runs only while the calling agent holds an in_progress step that names the
	// tool in its "(uses …)" ("- [ ] Deploy (after 3) (uses deploy_prod)", Step.Uses), of a
	// plan that is approved at its current revision; a step naming no tools unlocks none.
	// Otherwise the tool does not run, the model gets
	// {"error":{"code":"not_approved","message":...}} saying what to do next, and the run goes
	// on. "*" gates every tool except plan tools, adk's exit and transfer_to_agent, and a call of
	// one of Eino's agent starters (adk.NewAgentTool, a deep agent's task) whose sub-agent has
	// a plan middleware gating every tool ("*") itself; a tool that merely declares a
	// subagent_type parameter, or starts an agent without such a middleware, is gated. With any
	// GatedTools, export_plan_to_file, which writes a Workspace file, is gated too, under its
	// name as the model sees it (so a step must name it); naming it here is allowed. Setting
	// it implies RequireApproval. Sub-agents act under their own holds, so each sub-agent that
	// calls gated tools needs a plan middleware with GatedTools too; an orchestrator that acts
	// itself takes a step like anyone else.
	GatedTools []string
	// GateAnyHeldStep is a weaker GatedTools: any step the calling agent holds of an approved
	// plan unlocks every gated tool, whatever its "(uses …)" names, so a person who approved
	// "Fix a typo" has approved deploying under it too. Off by default.
	GateAnyHeldStep bool
	// OnGatedCall hears every call of a gated tool, run or refused, before it runs; during
	// a run the same GatedCall is also emitted as an Eino event whose
	// Output.CustomizedOutput is the GatedCall.
	OnGatedCall func(ctx context.Context, call GatedCall)
	// OnChange is called after every successful mutation made through this middleware's
	// tools, never after a failed one, and never with a plan's body. During a run the same
	// Change is also emitted as an Eino event whose Output.CustomizedOutput is the Change.
	// A sub-agent's events reach the parent runner's iterator only when the parent forwards
	// them (adk.ToolsConfig.EmitInternalEvents, for deep agents too); OnChange sees every
	// change either way. It sees only changes made through this middleware's tools; changes
	// by other processes, machines or Stores reach a program through Store.Watch.
	OnChange func(ctx context.Context, c Change)
	// RequireEvidence refuses (evidence_required) an agent's completion of a step that
	// carries no evidence (update_plan_step's evidence), unless the step already has some
	// (a review's completion). Completions by people (the Store's API) are not checked.
	RequireEvidence bool
	// Verify, when set, runs before an agent's completion of a step lands, outside any lock:
	// an error refuses it (not_verified, with the error's text for the model), nothing is
	// written and the step stays in progress with its holder. The completion then lands only
	// if no change since touched the step (Completion.Revision).
	Verify func(ctx context.Context, c Completion) error
	// OnCost hears what each step cost when this middleware's agent moves it out of
	// in_progress, and when a step first goes over its budget or its plan's (CostReport).
	// During a run the same CostReport is also emitted as an Eino event.
	OnCost func(ctx context.Context, r CostReport)
	// LeanWorker gives an agent that only takes and finishes steps a lean plan tax: its model
	// sees update_plan_step and read_plan, with short texts, and a short instruction; a call
	// to another plan tool gets tool_not_available (tools_lean.go). Every guard stays. Off by
	// default: hosts choose it for their workers.
	LeanWorker bool
}

// New returns the middleware for agents on *schema.Message.
func New(ctx context.Context, cfg *Config) (adk.ChatModelAgentMiddleware, error) {
	return NewTyped[*schema.Message](ctx, cfg)
}

// NewTyped returns the middleware for agents on any Eino message type, including
// *schema.AgenticMessage.
func NewTyped[M adk.MessageType](_ context.Context, cfg *Config) (adk.TypedChatModelAgentMiddleware[M], error) {
	if cfg == nil {
		return nil, errors.New("plan: Config is nil")
	}
	if cfg.Language != adk.LanguageEnglish && cfg.Language != adk.LanguageChinese {
		return nil, fmt.Errorf("plan: unsupported Language %v", cfg.Language)
	}
	if cfg.Role < RoleAuto || cfg.Role > RoleSubAgent {
		return nil, fmt.Errorf("plan: unknown Role %d", cfg.Role)
	}
	m := &middleware[M]{TypedBaseChatModelAgentMiddleware: &adk.TypedBaseChatModelAgentMiddleware[M]{},
		cfg: *cfg, running: &agentNames{}}
	var err error
	if m.store, err = storeFor(cfg); err != nil {
		return nil, err
	}
	if m.gated, err = newGate(cfg.GatedTools); err != nil {
		return nil, err
	}
	m.files = newFileGuard(m.store, cfg.Workspace)
	if m.gated != nil {
		m.cfg.RequireApproval = true
	}
	if err := tools.CheckPlanSet(cfg.PlanSet); err != nil {
		return nil, err
	}
	m.actor = agentActor(cfg.AgentName)
	if m.cfg.Digest.MaxPlans <= 0 {
		m.cfg.Digest.MaxPlans = 12
	}
	if m.cfg.Digest.MaxBytes <= 0 {
		m.cfg.Digest.MaxBytes = 1500
	}
	if m.names, err = tools.PlanToolNames(cfg.ToolNames, cfg.ToolPrefix); err != nil {
		return nil, err
	}
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		if m.langs[lang], err = m.toolSet(lang); err != nil {
			return nil, err
		}
	}
	m.templateName = m.names[ToolPlanTemplate]
	m.approvalName = m.names[ToolRequestPlanApproval]
	m.stateKey = &runState{}
	return m, nil
}

// toolSet builds the texts and tools of one language.
func (m *middleware[M]) toolSet(lang adk.Language) (*toolSet, error) {
	base := textsIn(lang)
	if m.cfg.LeanWorker {
		base = tools.WithLean(base, leanIn(lang))
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
	env := &tools.ToolEnv{Store: m.store, Workspace: m.cfg.Workspace, Texts: texts, Template: template,
		Agent: m.agentIn, Role: m.roleIn, Sink: m.changeSink(), Listens: m.listening, RequireApproval: m.cfg.RequireApproval}
	env.RequireEvidence, env.Verify = m.cfg.RequireEvidence, m.cfg.Verify
	env.Lean = m.cfg.LeanWorker
	env.Costs, env.Report = m.costsIn, m.reportCost
	if m.cfg.Workspace != nil {
		env.GuardWorkspace(m.cfg.Workspace)
	}
	set := &toolSet{texts: texts, env: env}
	for _, spec := range tools.ToolSpecs() {
		if tools.FileTools[spec.Name] && m.cfg.Workspace == nil || spec.Name == ToolRequestPlanApproval && !m.cfg.RequireApproval {
			continue
		}
		set.tools = append(set.tools, tools.NewPlanTool(spec, env, m.names[spec.Name]))
	}
	return set, nil
}

// storeFor returns the Store a middleware works on: the given one, or one made from cfg.
func storeFor(cfg *Config) (*Store, error) {
	if cfg.Store == nil {
		return NewStore(&StoreConfig{Backend: cfg.Backend, BaseDir: cfg.BaseDir, MaxContentBytes: cfg.MaxContentBytes, HistoryLimit: cfg.HistoryLimit, ClaimTTL: cfg.ClaimTTL, ApprovalKey: cfg.ApprovalKey})
	}
	if cfg.Backend != nil || cfg.BaseDir != "" || cfg.MaxContentBytes != 0 || cfg.HistoryLimit != 0 || cfg.ApprovalKey != nil {
		return nil, errors.New("plan: Config.Store is set: leave Backend, BaseDir, MaxContentBytes, HistoryLimit and ApprovalKey unset (the Store has them)")
	}
	return cfg.Store, nil
}

// leanIn returns the lean worker's texts of lang (Config.LeanWorker).
func leanIn(lang adk.Language) map[string]string {
	if lang == adk.LanguageChinese {
		return leanZH
	}
	return leanEN
}

func textsIn(lang adk.Language) map[string]string {
	if lang == adk.LanguageChinese {
		return textsZH
	}
	return textsEN
}

// toolSet is what a model of one language gets: the texts and the plan tools.
type toolSet struct {
	texts map[string]string
	env   *tools.ToolEnv
	tools []*tools.PlanTool
}

type middleware[M adk.MessageType] struct {
	*adk.TypedBaseChatModelAgentMiddleware[M]
	cfg   Config
	store *Store
	// names are the plan tools' names as this agent's model sees them, by default name.
	names map[string]string
	// langs are the texts and tools of each language; language picks one per run.
	langs [2]*toolSet
	// actor is who Config.AgentName acts as (agentActor).
	actor string
	// gated are the tools that run only under an approved step; nil gates none.
	gated *gate
	// files keeps Eino's filesystem tools out of the plans folders and keys (fs_guard.go).
	files *fileGuard
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
// else the one adk.SetLanguage chose (see einoLanguage).
func (m *middleware[M]) language() adk.Language {
	if m.cfg.Language == adk.LanguageChinese {
		return adk.LanguageChinese
	}
	return einoLanguage()
}

// set is the tool set of the run of ctx; outside a run, the one of the language now.
func (m *middleware[M]) set(ctx context.Context) *toolSet {
	if st, ok := ctx.Value(m.stateKey).(*runState); ok && st.set != nil {
		return st.set
	}
	return m.langs[m.language()]
}

// beforeAgent adds the plan tools, the instruction and the digest to a run's, and marks the
// run's context with its role so that runs started inside it know they are sub-agents.
// BeforeAgent (eino_seam_agent.go) is what Eino calls.
func (m *middleware[M]) beforeAgent(ctx context.Context, runCtx runSetup) (context.Context, runSetup, error) {
	call, _ := ctx.Value(callKey{}).(*callToken)
	mark, marked := ctx.Value(runKey{}).(runMark)
	nested := marked && (mark.nested || mark.call != call)
	ctx = context.WithValue(ctx, runKey{}, runMark{call: call, nested: nested})
	role := m.cfg.Role
	if role == RoleAuto {
		role = RoleOrchestrator
		if nested {
			role = RoleSubAgent
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
	st.digest.anchor = m.instruction(set.texts, role)
	st.digest.text = m.digest(ctx, set.texts)
	st.digest.inHistory = st.digest.text // a resumed run's may differ: see renewDigest
	next.Instruction = runCtx.Instruction + st.digest.anchor + st.digest.text
	return ctx, next, nil
}

// AfterAgent ends a sub-agent's run: the name it acted as is free again once the tool call
// that started it is over too.
func (m *middleware[M]) AfterAgent(ctx context.Context, _ *adk.TypedChatModelAgentState[M]) (context.Context, error) {
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
func (m *middleware[M]) BeforeModelRewriteState(ctx context.Context, state *adk.TypedChatModelAgentState[M], _ *adk.TypedModelContext[M]) (context.Context, *adk.TypedChatModelAgentState[M], error) {
	if state == nil {
		return ctx, state, nil
	}
	if m.roleIn(ctx) != RoleSubAgent && !m.cfg.LeanWorker {
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

func (m *middleware[M]) instruction(texts map[string]string, role Role) string {
	var b strings.Builder
	b.WriteString(tools.WithPlanSet(texts["instruction"], texts, m.cfg.PlanSet))
	if m.cfg.Workspace != nil {
		b.WriteString(texts["instruction.files"])
	}
	if role == RoleOrchestrator && !m.cfg.LeanWorker {
		b.WriteString(texts["instruction.template"])
	}
	if m.cfg.RequireApproval && role == RoleOrchestrator && !m.cfg.LeanWorker {
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
func (m *middleware[M]) listening(ctx context.Context) bool {
	return m.cfg.OnChange != nil || inRun(ctx)
}

// changeSink returns what hears the changes made through this middleware's tools: the
// host's OnChange and, during a run, the run's event stream. Tools attach it only while
// listening holds, so no Change is computed for a call nobody hears.
func (m *middleware[M]) changeSink() func(context.Context, Change) {
	return func(ctx context.Context, c Change) {
		if m.cfg.OnChange != nil {
			m.cfg.OnChange(ctx, c)
		}
		m.emit(ctx, c)
	}
}

// emit sends out as an event of the run of ctx, if any. A parallel run of a sub-agent
// names itself in the event's AgentName ("worker·2"), so hosts tell its events from the
// other run's.
func (m *middleware[M]) emit(ctx context.Context, out any) {
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
func (m *middleware[M]) checkUniqueToolNames(ctx context.Context, agentTools []tool.BaseTool) error {
	ours := map[string]string{} // the name the model sees → the default name
	for n, to := range m.names {
		if tools.FileTools[n] && m.cfg.Workspace == nil || n == ToolRequestPlanApproval && !m.cfg.RequireApproval {
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
