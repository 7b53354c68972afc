package agentrun

import (
	"context"
	"sync"

	"github.com/einoplan/plan/internal/tools"
)

// What a middleware knows of the run a call is in: whether there is one, which tool call
// started it, the role it has and the agent it acts as.

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

// runState is what one middleware keeps for one run: its role, who it acts as, its
// language, and the digest it showed.
type runState struct {
	role  tools.Role
	agent string // who the run's changes are by, and who holds the steps it takes
	set   *toolSet
	// call is the tool call the run was started in, when it is a sub-agent's run.
	call *callToken
	// renamed: the run acts under a name of its own (a parallel run of one sub-agent).
	renamed bool

	mu sync.Mutex
	// starters are the run's agent starters (starters.go); exempt the tools of the run
	// that "*" never gates.
	starters map[string]*starter
	exempt   map[string]bool
	// exports are the export_plan_to_file tools of every plan middleware of the run: they
	// write Workspace files, so a gating middleware gates them all.
	exports map[string]bool
	// fileTools are the run's renamed Eino filesystem tools, by name (fs_guard_names.go).
	fileTools map[string]string

	digest runDigest
	// reminders tell the run of others' changes to its plans (reminders.go).
	reminders runReminders
	// costs measure the steps the run holds (costs.go).
	costs tools.RunCosts
}

func inRun(ctx context.Context) bool {
	_, ok := ctx.Value(runKey{}).(runMark)
	return ok
}

// agentIn is the agent that a call in the run of ctx acts as: the sub-agent a nested run was
// started as, else Config.AgentName.
func (m *Middleware[M]) agentIn(ctx context.Context) string {
	if st, ok := ctx.Value(m.stateKey).(*runState); ok {
		return st.agent
	}
	return m.actor
}

// roleIn is this middleware's role in the run of ctx. An explicit Config.Role is the role
// everywhere; RoleAuto is decided per run (and stays RoleAuto outside a run).
func (m *Middleware[M]) roleIn(ctx context.Context) tools.Role {
	if m.cfg.Role != tools.RoleAuto {
		return m.cfg.Role
	}
	if st, ok := ctx.Value(m.stateKey).(*runState); ok {
		return st.role
	}
	return tools.RoleAuto
}
