package agentrun

import (
	"context"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/tools"
)

// Settings is plan.Config field for field, so the root converts a Config into it whole and
// the compiler checks that the two agree (S is the root's *Store, which the middleware never
// reads: it is handed the engine Store the root resolved). plan.Config documents each field.
type Settings[S any] struct {
	Backend         driver.Backend
	BaseDir         string
	Store           S
	Workspace       driver.Workspace
	Language        adk.Language
	Role            tools.Role
	AgentName       string
	ReminderEvery   int
	Template        string
	Digest          DigestConfig
	ToolNames       map[string]string
	ToolPrefix      string
	PlanSet         string
	RequireApproval bool
	GatedTools      []string
	UngatedTools    []string
	GateAnyHeldStep bool
	OnGatedCall     func(ctx context.Context, call GatedCall)
	OnChange        func(ctx context.Context, c engine.Change)
	RequireEvidence bool
	Verify          func(ctx context.Context, c tools.Completion) error
	VerifyTimeout   time.Duration
	ProofResult     func(tool, result string) bool
	AdvanceOnProof  bool
	OnCost          func(ctx context.Context, r tools.CostReport)
	LeanWorker      bool
}

// Texts are the texts a model of one language reads: every text, and those a lean worker
// reads in their place (Config.LeanWorker).
type Texts struct {
	Full, Lean map[string]string
}

type Middleware[M adk.MessageType, S any] struct {
	*adk.TypedBaseChatModelAgentMiddleware[M]
	cfg Settings[S]
	// texts are the texts of each language, as the root hands them down.
	texts map[adk.Language]Texts
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

// toolSet is what a model of one language gets: the texts and the plan tools.
type toolSet struct {
	texts map[string]string
	env   *tools.ToolEnv
	tools []*tools.PlanTool
}
