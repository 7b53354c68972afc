package tools

import "github.com/einoplan/plan/api"

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
