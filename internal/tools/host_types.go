package tools

import (
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
)

// What the middleware hands to a host, declared in package api.
type (
	Role       = api.Role
	Completion = api.Completion
	CostReport = api.CostReport
)

// The roles of a run.
const (
	RoleAuto         = api.RoleAuto
	RoleOrchestrator = api.RoleOrchestrator
	RoleSubAgent     = api.RoleSubAgent
)

func init() {
	// Interrupt info and state, and the events of a run (a Change is one), are kept in
	// checkpoints, which Eino encodes with gob.
	schema.RegisterName[document.ApprovalRequest]("einoplan_approval_request")
	schema.RegisterName[document.ApprovalDecision]("einoplan_approval_decision")
	schema.RegisterName[engine.Change]("einoplan_change")
	schema.RegisterName[CostReport]("einoplan_cost_report") // events are kept in checkpoints
}
