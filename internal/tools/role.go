package tools

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
