package api

// Completion is a step completion about to land, as Config.Verify sees it: nothing of it is
// written until Verify returns nil.
type Completion struct {
	// Plan is the plan's name.
	Plan string
	// Step is the step's number, from 1.
	Step int
	// Text is the step's text as the plan has it now, without its holder's tag.
	Text string
	// Evidence is what the agent says shows the step done, folded to one line; for a
	// review's completion that gives none, the evidence its doer gave; "" for none.
	Evidence string
	// Agent is who completes it: the calling agent's name ("" for an agent with no name).
	Agent string
	// Revision is the plan's revision the completion was checked against; the completion
	// lands on it, or on a later one only where no change since touched the step.
	Revision int64
}

// CostReport is what a host hears of a step's cost (Config.OnCost, and an event of the run
// whose Output.CustomizedOutput is the CostReport): when the step leaves in_progress, and
// when it first goes over its budget or its plan's (Over).
type CostReport struct {
	Plan  string    `json:"plan"`
	Step  int       `json:"step"`
	State StepState `json:"state"`
	Agent string    `json:"agent,omitempty"`
	Cost  StepCost  `json:"cost"`
	// Over names the budget the step went over: "step" or "plan"; "" when it is within.
	Over string `json:"over,omitempty"`
	// Budget is the budget it went over, when Over is set.
	Budget *Budget `json:"budget,omitempty"`
	// InvalidUsage counts the model calls whose usage was negative or over a billion
	// tokens in a count: each is in Cost.NoUsage, and none of its tokens in Cost, so a
	// broken or hostile usage report cannot keep a step under its budget.
	InvalidUsage int `json:"invalid_usage,omitempty"`
}

// GatedCall reports one call of a gated tool (Config.GatedTools), before it runs: who called
// what, and under which hold. A call runs only while Agent holds step Step of plan Plan,
// approved at Revision, its revision when the call was checked, and the step names Tool in
// its "(uses …)" (Uses; any held step with Config.GateAnyHeldStep). A refused call has
// Allowed false, Reason saying why, and Plan, Step, Revision and Uses of the hold or plan it
// lacked the approval or the naming of, when there is one.
type GatedCall struct {
	Tool  string `json:"tool"`
	Agent string `json:"agent"` // the run's agent name: "worker", or "worker·2" for a second run at once
	// Allowed: the tool runs.
	Allowed bool `json:"allowed"`
	// Reason is why a call was refused: "no_agent" (the run has no name to hold steps by),
	// "no_plan", "not_approved" (no plan is approved), "hold_not_approved" (the step held
	// is on a plan not approved at its current revision), "tool_not_named" (the step held
	// on an approved plan does not name Tool in its "(uses …)"), "no_step" (nothing held),
	// "unavailable" (the plans could not be read) or "over_budget" (the step held, or its
	// plan, went over its budget). "" when Allowed.
	Reason   string `json:"reason,omitempty"`
	Plan     string `json:"plan,omitempty"`
	Step     int    `json:"step,omitempty"`
	StepText string `json:"step_text,omitempty"`
	Revision int64  `json:"revision,omitempty"`
	// Uses are the gated tools the step held may use (Step.Uses).
	Uses []string `json:"uses,omitempty"`
	// Over names, for over_budget, the budget that ran out: "step" (the step's own) or
	// "plan" (its plan's); "" otherwise.
	Over string `json:"over,omitempty"`
}

// DigestConfig bounds the plan digest appended to the instruction at the start of each
// run. The digest stays the same between the model calls of a run, so prompt caching keeps
// working, until the run's history is rewritten (a summarization middleware compacted it):
// the model call that first sees the rewritten history reads a fresh digest, whatever the
// order of the agent's handlers.
type DigestConfig struct {
	Disabled bool
	MaxPlans int // default 12
	MaxBytes int // default 1500
}

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
