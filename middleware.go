package plan

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/agentrun"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/tools"
)

// Role decides whether an agent run may use plan_template and request_plan_approval.
type Role = api.Role

const (
	// RoleAuto decides per run: a run started inside a run of an agent that uses this
	// package (a sub-agent called through adk.NewAgentTool or a deep agent's task tool) is
	// a sub-agent, any other run is the orchestrator. One middleware can therefore serve a
	// deep agent and its general-purpose sub-agent, as deep.New requires.
	RoleAuto = api.RoleAuto
	// RoleOrchestrator always offers plan_template.
	RoleOrchestrator = api.RoleOrchestrator
	// RoleSubAgent never shows plan_template to the model; a call to it anyway returns
	// tool_not_available.
	RoleSubAgent = api.RoleSubAgent
)

// Tool names, as models already know them: the keys of Config.ToolNames.
const (
	ToolWritePlan          = tools.ToolWritePlan
	ToolReadPlan           = tools.ToolReadPlan
	ToolListPlans          = tools.ToolListPlans
	ToolDeletePlan         = tools.ToolDeletePlan
	ToolSetPlanStatus      = tools.ToolSetPlanStatus
	ToolGetPlanStatus      = tools.ToolGetPlanStatus
	ToolUpdatePlanStep     = tools.ToolUpdatePlanStep
	ToolExportPlanToFile   = tools.ToolExportPlanToFile
	ToolUpdatePlanFromFile = tools.ToolUpdatePlanFromFile
	ToolPlanTemplate       = tools.ToolPlanTemplate
	// ToolRequestPlanApproval asks a person to approve a plan. It is offered only with
	// Config.RequireApproval, and only to the orchestrator.
	ToolRequestPlanApproval = tools.ToolRequestPlanApproval
)

// What the middleware hands to a host is declared in package api, where `go doc` shows the
// fields: `go doc github.com/einoplan/plan/api GatedCall`.

// DigestConfig bounds the digest of current plans appended to the instruction.
type DigestConfig = api.DigestConfig

// GatedCall reports one call of a gated tool (Config.GatedTools), run or refused, before it runs.
type GatedCall = api.GatedCall

// Completion is a step completion about to land, as Config.Verify sees it.
type Completion = api.Completion

// CostReport is what a host hears of a step's cost (Config.OnCost).
type CostReport = api.CostReport

// Config configures the middleware.
type Config struct {
	// Backend is where plans live. Required unless Store is set.
	Backend Backend
	// BaseDir is the folder of plans inside Backend; default "/plans". "plans", "/plans"
	// and "/plans/" are one folder.
	BaseDir string
	// Store, when set, is used instead of a Store made from Backend and BaseDir (which must
	// then be unset): a Store made with NewStore is how a host sets the rest of StoreConfig
	// (ApprovalKey, HoldTTL, HistoryLimit, MaxContentBytes). Middlewares and host code given
	// one *Store share its lock and cache explicitly, which matters for a Backend whose storage
	// the Store cannot recognise by itself (no Unwrap, no capability, a value that is not
	// comparable).
	Store *Store
	// Workspace is the agent's own file system. When set, export_plan_to_file and
	// update_plan_from_file are offered; they never reach outside it. Give it the backend of
	// Eino's filesystem tools too: the middleware then reads their paths as its paths when it
	// keeps them out of the plans folders and keys (it always reads them as host paths).
	Workspace driver.Workspace
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
	// it implies RequireApproval. Names are matched exactly after trimming; New refuses one
	// with a space inside or a wildcard other than "*", and a near miss of a tool of a run
	// ("Deploy_Prod", "deploy" for deploy_prod) fails the run (docs/plan-mode.md). Sub-agents act under their own holds, so each sub-agent that
	// calls gated tools needs a plan middleware with GatedTools too; an orchestrator that acts
	// itself takes a step like anyone else.
	GatedTools []string
	// UngatedTools leaves the tools it names free under GatedTools "*": read-only tools such
	// as ls, read_file and grep then run with no plan and no step, and OnGatedCall never hears
	// them. Eino's file tools stay out of the plans folder and the approval key either way.
	// Names are matched exactly after trimming; New refuses one with a space inside or a
	// wildcard, a plan tool, one GatedTools names too, and any without "*" in GatedTools.
	UngatedTools []string
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
	// VerifyTimeout bounds each call of Verify: one that does not return in time refuses
	// the completion (not_verified, "the verifier did not answer in time") and its context
	// is canceled; one that panics refuses it too ("the verifier failed"). Either way the
	// run goes on and the step stays with its holder. 0 means 2 minutes; negative, none.
	VerifyTimeout time.Duration
	// ProofResult judges whether a call the middleware observed passed (api.Observation.OK),
	// from the tool's name and its result text (an exit code, a test summary): a step ending
	// with "(proof run_tests)" completes only on a passing call. A call that returned an
	// error never passes; nil counts every other call as passed. It must not block.
	ProofResult func(tool, result string) bool
	// AdvanceOnProof lets the host keep the books of proven steps: when a call of a held
	// step's "(proof …)" tool passes (the call a completion would accept; set ProofResult,
	// or every call that returns without an error passes), the middleware completes the step (with that call as its evidence where RequireEvidence asks for
	// some) and takes the next ready step for the agent, in one write, as update_plan_step
	// with next does, before the call's result reaches the model; the model learns it in
	// one line after the history at its next call (the step held now, its text, the
	// progress), or why the step stays its own when the plan refused the completion, and
	// reads a shorter line naming that step at each later call while it holds it. The
	// calls of a model message advance only steps held when it came (the model listed its
	// calls knowing them), each once; none of a message that also lists a plan tool call
	// (of any plan middleware), nor a call a resumed run reruns; runs of
	// *schema.AgenticMessage do not advance.
	AdvanceOnProof bool
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
	store, err := storeFor(cfg)
	if err != nil {
		return nil, err
	}
	return agentrun.NewMiddleware[M](agentrun.Settings[*Store](*cfg), store, modelTexts)
}

// storeFor returns the Store a middleware works on: the given one, or one made from Backend
// and BaseDir, which must then be unset.
func storeFor(cfg *Config) (*engine.Store, error) {
	if cfg.Store == nil {
		return engine.NewStore(&StoreConfig{Backend: cfg.Backend, BaseDir: cfg.BaseDir})
	}
	if cfg.Backend != nil || cfg.BaseDir != "" {
		return nil, errors.New("plan: Config.Store is set: leave Backend and BaseDir unset (the Store has them)")
	}
	return cfg.Store.e, nil
}

// modelTexts are the texts of tools_en.go and tools_zh.go, by language.
var modelTexts = map[adk.Language]agentrun.Texts{
	adk.LanguageEnglish: {Full: textsEN, Lean: leanEN},
	adk.LanguageChinese: {Full: textsZH, Lean: leanZH},
}
