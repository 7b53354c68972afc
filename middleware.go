package plan

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// Role decides whether an agent run may use plan_template and request_plan_approval.
type Role int

const (
	// RoleAuto decides per run: a run started inside a run of an agent that uses this
	// package (a sub-agent called through adk.NewAgentTool or a deep agent's task tool) is
	// a sub-agent, any other run is the orchestrator. One middleware can therefore serve a
	// deep agent and its general-purpose sub-agent, as deep.New requires.
	RoleAuto Role = iota
	// RoleOrchestrator always offers plan_template.
	RoleOrchestrator
	// RoleSubAgent never shows plan_template to the model; a call to it anyway returns
	// tool_not_available.
	RoleSubAgent
)

// DigestConfig bounds the plan digest appended to the instruction at the start of each
// run. The digest is built once per run, so it never changes between the model calls of
// a run and prompt caching keeps working.
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
	// Workspace is the agent's own file system. When set, export_plan_to_file and
	// update_plan_from_file are offered; they never reach outside it.
	Workspace Workspace
	// Language picks the texts the model sees: adk.LanguageEnglish (default) or
	// adk.LanguageChinese.
	Language adk.Language
	// Role decides who gets plan_template and request_plan_approval; default RoleAuto.
	Role Role
	// AgentName is who this agent's tool calls act as: the author of plans it creates without
	// one, who the history says made its changes, and the holder of the steps it moves to
	// in_progress. A sub-agent's run acts as the agent it was started as (a deep agent's
	// subagent_type, or the agent tool's name) instead. With no name, steps it takes are
	// held by nobody.
	AgentName string
	// MaxContentBytes caps a plan's body; default 1 MiB (a given Store's own cap otherwise).
	MaxContentBytes int
	// HistoryLimit keeps that many revisions of each plan (StoreConfig.HistoryLimit: 0 is
	// DefaultHistoryLimit, negative keeps none), which lets read_plan's since_revision return
	// only what changed and stale step moves of other steps apply without a conflict.
	HistoryLimit int
	// Template replaces the built-in plan writing guide that plan_template returns.
	Template string
	// Digest bounds the digest of current plans added to the instruction.
	Digest DigestConfig
	// ToolNames renames plan tools: default name (ToolWritePlan, ...) → the name this agent's
	// model sees. Every text the model reads uses the new names. Needed when one agent has two
	// plan middlewares (say team plans and personal plans): BeforeAgent refuses an agent that
	// would end up with two tools of one name.
	ToolNames map[string]string
	// RequireApproval makes update_plan_step refuse (not_approved) to move any step of a plan
	// that a person has not approved, and offers the orchestrator request_plan_approval,
	// which pauses the run with an Eino interrupt until a person decides (the Runner needs a
	// CheckPointStore to resume it; see ApprovalRequest and ApprovalDecision). Off by default.
	RequireApproval bool
	// OnChange is called after every successful mutation made through this middleware's
	// tools, never after a failed one, and never with a plan's body. During a run the same
	// Change is also emitted as an Eino event whose Output.CustomizedOutput is the Change.
	// A sub-agent's events reach the parent runner's iterator only when the parent forwards
	// them (adk.ToolsConfig.EmitInternalEvents, for deep agents too); OnChange sees every
	// change either way. It sees only changes made through this middleware's tools; changes
	// by other processes, machines or Stores reach a program through Store.Watch.
	OnChange func(ctx context.Context, c Change)
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
	texts, err := textsFor(cfg.Language)
	if err != nil {
		return nil, err
	}
	if cfg.Role < RoleAuto || cfg.Role > RoleSubAgent {
		return nil, fmt.Errorf("plan: unknown Role %d", cfg.Role)
	}
	m := &middleware[M]{TypedBaseChatModelAgentMiddleware: &adk.TypedBaseChatModelAgentMiddleware[M]{},
		cfg: *cfg, running: &agentNames{}}
	if m.store, err = storeFor(cfg); err != nil {
		return nil, err
	}
	if m.cfg.Digest.MaxPlans <= 0 {
		m.cfg.Digest.MaxPlans = 12
	}
	if m.cfg.Digest.MaxBytes <= 0 {
		m.cfg.Digest.MaxBytes = 1500
	}
	if texts, err = renameTools(texts, cfg.ToolNames); err != nil {
		return nil, err
	}
	m.texts = texts
	template := cfg.Template
	if strings.TrimSpace(template) == "" {
		template = texts["template"]
	}
	env := &toolEnv{store: m.store, workspace: cfg.Workspace, texts: texts, template: template,
		agent: m.agentIn, sink: m.changeSink(), listens: m.listening, requireApproval: cfg.RequireApproval}
	if cfg.Workspace != nil {
		env.guardWorkspace(cfg.Workspace)
	}
	for _, spec := range toolSpecs() {
		if fileTools[spec.name] && cfg.Workspace == nil || spec.name == ToolRequestPlanApproval && !cfg.RequireApproval {
			continue
		}
		m.tools = append(m.tools, newPlanTool(spec, env, toolName(cfg.ToolNames, spec.name)))
	}
	m.templateName = toolName(cfg.ToolNames, ToolPlanTemplate)
	m.approvalName = toolName(cfg.ToolNames, ToolRequestPlanApproval)
	m.stateKey = &runState{}
	env.role = m.roleIn
	return m, nil
}

// storeFor returns the Store a middleware works on: the given one, or one made from cfg.
func storeFor(cfg *Config) (*Store, error) {
	if cfg.Store == nil {
		return NewStore(&StoreConfig{Backend: cfg.Backend, BaseDir: cfg.BaseDir, MaxContentBytes: cfg.MaxContentBytes, HistoryLimit: cfg.HistoryLimit})
	}
	if cfg.Backend != nil || cfg.BaseDir != "" || cfg.MaxContentBytes != 0 || cfg.HistoryLimit != 0 {
		return nil, errors.New("plan: Config.Store is set: leave Backend, BaseDir, MaxContentBytes and HistoryLimit unset (the Store has them)")
	}
	return cfg.Store, nil
}

func textsFor(lang adk.Language) (map[string]string, error) {
	switch lang {
	case adk.LanguageEnglish:
		return textsEN, nil
	case adk.LanguageChinese:
		return textsZH, nil
	}
	return nil, fmt.Errorf("plan: unsupported Language %v", lang)
}

type middleware[M adk.MessageType] struct {
	*adk.TypedBaseChatModelAgentMiddleware[M]
	cfg   Config
	texts map[string]string
	store *Store
	tools []*planTool
	// templateName is plan_template's name as this agent's model sees it.
	templateName string
	// approvalName is request_plan_approval's, offered with RequireApproval.
	approvalName string
	// stateKey keys this middleware's runState in a run's context.
	stateKey *runState
	// running are the names of the sub-agents this agent's tool calls are running.
	running *agentNames
}

// runKey marks a context as being inside a run of an agent that uses this package; its
// value is a runMark.
type runKey struct{}

// callKey marks the context of one tool call of such an agent; its value is a fresh
// *callToken per call, so every call is told apart even when a model sends no call IDs.
type callKey struct{}

// runMark says in which tool call a run was started (nil: outside any), and whether it is a
// sub-agent's. A run started in another tool call than the marked one is a sub-agent's; one
// in the same call is the same run, seen by a second plan middleware.
type runMark struct {
	call   *callToken
	nested bool
}

// runState is what one middleware keeps for one run: its role and the digest it showed.
type runState struct {
	role   Role
	agent  string // who the run's changes are by, and who holds the steps it takes
	digest runDigest
}

func inRun(ctx context.Context) bool {
	_, ok := ctx.Value(runKey{}).(runMark)
	return ok
}

// agentIn is the agent that a call in the run of ctx acts as: the sub-agent a nested run was
// started as, else Config.AgentName.
func (m *middleware[M]) agentIn(ctx context.Context) string {
	if st, ok := ctx.Value(m.stateKey).(*runState); ok {
		return st.agent
	}
	return m.cfg.AgentName
}

// roleIn is this middleware's role in the run of ctx (RoleAuto outside a run).
func (m *middleware[M]) roleIn(ctx context.Context) Role {
	if st, ok := ctx.Value(m.stateKey).(*runState); ok {
		return st.role
	}
	return RoleAuto
}

// WrapInvokableToolCall gives each tool call of the agent a context of its own, so a run
// started inside it (a sub-agent) knows it is nested.
func (m *middleware[M]) WrapInvokableToolCall(_ context.Context, endpoint adk.InvokableToolCallEndpoint, tc *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	name := ""
	if tc != nil {
		name = tc.Name
	}
	return func(ctx context.Context, args string, opts ...tool.Option) (string, error) {
		call := &callToken{tool: name, args: args, names: m.running}
		defer call.release()
		return endpoint(context.WithValue(ctx, callKey{}, call), args, opts...)
	}, nil
}

// BeforeAgent adds the plan tools, the instruction and the digest, and marks the run's
// context with its role so that runs started inside it know they are sub-agents.
func (m *middleware[M]) BeforeAgent(ctx context.Context, runCtx *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	if runCtx == nil {
		return ctx, runCtx, nil
	}
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
	st := &runState{role: role, agent: m.cfg.AgentName}
	if nested {
		if name := call.agentName(); name != "" {
			st.agent = name
		}
	}
	ctx = context.WithValue(ctx, m.stateKey, st)

	next := *runCtx
	next.Tools = make([]tool.BaseTool, 0, len(runCtx.Tools)+len(m.tools))
	next.Tools = append(next.Tools, runCtx.Tools...)
	for _, t := range m.tools {
		next.Tools = append(next.Tools, t)
	}
	if err := checkUniqueToolNames(ctx, next.Tools); err != nil {
		return ctx, runCtx, err
	}
	st.digest.anchor = m.instruction(role)
	st.digest.text = m.digest(ctx)
	next.Instruction = runCtx.Instruction + st.digest.anchor + st.digest.text
	return ctx, &next, nil
}

// BeforeModelRewriteState hides plan_template and request_plan_approval from a sub-agent's
// model. The tools stay registered, so a call to one anyway gets tool_not_available instead
// of failing the run.
//
// It also renews the digest when the run's history shrank since the previous model call (a
// summarization middleware compacted it): the model, which no longer sees the tool results
// that moved the plans on, then reads the plans as they are now.
func (m *middleware[M]) BeforeModelRewriteState(ctx context.Context, state *adk.TypedChatModelAgentState[M], _ *adk.TypedModelContext[M]) (context.Context, *adk.TypedChatModelAgentState[M], error) {
	if state == nil {
		return ctx, state, nil
	}
	state = m.renewDigest(ctx, state)
	if m.roleIn(ctx) != RoleSubAgent {
		return ctx, state, nil
	}
	kept := make([]*schema.ToolInfo, 0, len(state.ToolInfos))
	for _, info := range state.ToolInfos {
		if info == nil || info.Name != m.templateName && info.Name != m.approvalName {
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

func (m *middleware[M]) instruction(role Role) string {
	var b strings.Builder
	b.WriteString(m.texts["instruction"])
	if m.cfg.Workspace != nil {
		b.WriteString(m.texts["instruction.files"])
	}
	if role == RoleOrchestrator {
		b.WriteString(m.texts["instruction.template"])
	}
	if m.cfg.RequireApproval && role == RoleOrchestrator {
		b.WriteString(m.texts["instruction.approval"])
	} else if m.cfg.RequireApproval {
		b.WriteString(m.texts["instruction.approval.sub"])
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
		if inRun(ctx) {
			_ = adk.TypedSendEvent[M](ctx, &adk.TypedAgentEvent[M]{Output: &adk.TypedAgentOutput[M]{CustomizedOutput: c}})
		}
	}
}
