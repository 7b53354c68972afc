package agentrun

import "github.com/einoplan/plan/internal/tools"

// toolSet is what a model of one language gets: the texts and the plan tools.
type toolSet struct {
	texts map[string]string
	env   *tools.ToolEnv
	tools []*tools.PlanTool
}
