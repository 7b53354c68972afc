package tools

import (
	"context"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/engine"
)

// ToolEnv is what every tool call works with.
type ToolEnv struct {
	Store *engine.Store
	// listEntries keeps list_plans entries of unchanged plans encoded.
	listEntries listCache
	// reads keeps read_plan results of unchanged plans encoded.
	reads     readCache
	Workspace driver.Workspace
	Texts     map[string]string
	Template  string
	Agent     func(context.Context) string         // the agent a call acts as: author, and holder of steps
	Role      func(context.Context) Role           // the middleware's role in a call's run
	Sink      func(context.Context, engine.Change) // hears the changes made through these tools
	Listens   func(context.Context) bool           // whether sink has anyone to tell, during this call
	// RequireApproval: update_plan_step moves steps of approved plans only.
	RequireApproval bool
	// RequireEvidence and verify check an agent's completion first (completion_checks.go).
	RequireEvidence bool
	Verify          func(context.Context, Completion) error
	VerifyTimeout   time.Duration // bounds Verify (runVerify)
	// Lean: a lean worker's tools; the others are not available (tools_lean.go).
	Lean bool
	// Costs is the measure of a call's run (nil outside one); report tells the host.
	Costs  func(context.Context) *RunCosts
	Report func(context.Context, CostReport)
	// SameStorage: the Workspace is the Store's storage, so file tools refuse paths inside
	// the Store's folder and plans change only through the Store.
	SameStorage bool
	// PlanRoot is the root of the Store's LocalBackend, if it is on one; wsRoot that of a
	// LocalBackend Workspace. The file tools keep out of the plans folder under them.
	WsRoot, PlanRoot string
}
