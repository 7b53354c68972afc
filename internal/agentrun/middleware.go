package agentrun

import (
	"context"

	"github.com/cloudwego/eino/adk"
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
