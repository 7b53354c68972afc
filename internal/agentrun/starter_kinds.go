package agentrun

// starterKind is which of Eino's starters a tool is.
type starterKind uint8

const (
	agentToolStarter starterKind = iota + 1
	deepTaskStarter
	subagentToolStarter
)

// starter is one agent starter among a run's tools.
type starter struct {
	Kind starterKind
	// Guarded are the names of the agents it starts that have a plan middleware gating every
	// tool: their own gate stands for the starter's under "*".
	Guarded map[string]bool
	// Carries are the GatedTools names of the plan middlewares of the agents it starts ("*"
	// for one gating every tool): each of their runs checks them (checkGatedNames).
	Carries map[string]bool
}
