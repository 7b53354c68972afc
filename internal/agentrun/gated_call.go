package agentrun

import "github.com/cloudwego/eino/schema"

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
	// plan, went over its budget: budgets.go). "" when Allowed.
	Reason   string `json:"reason,omitempty"`
	Plan     string `json:"plan,omitempty"`
	Step     int    `json:"step,omitempty"`
	StepText string `json:"step_text,omitempty"`
	Revision int64  `json:"revision,omitempty"`
	// Uses are the gated tools the step held may use (Step.Uses).
	Uses []string `json:"uses,omitempty"`
}

func init() {
	schema.RegisterName[GatedCall]("einoplan_gated_call") // events are kept in checkpoints
}
