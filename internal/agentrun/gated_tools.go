package agentrun

import (
	"fmt"
	"strings"

	"github.com/einoplan/plan/internal/tools"
)

// gate is Config.GatedTools: the tools named, or with all every tool that is not a plan
// tool and does not start sub-agents.
type gate struct {
	all   bool
	names map[string]bool
}

func newGate(list []string) (*gate, error) {
	if len(list) == 0 {
		return nil, nil
	}
	g := &gate{names: map[string]bool{}}
	for _, n := range list {
		switch {
		case n == "*":
			g.all = true
		case strings.TrimSpace(n) == "":
			return nil, fmt.Errorf("plan: GatedTools has an empty name")
		default:
			g.names[n] = true
		}
	}
	for _, n := range tools.DefaultToolNames {
		if g.names[n] && n != tools.ToolExportPlanToFile { // gated anyway: see gatesExport
			return nil, fmt.Errorf("plan: GatedTools names %q, a plan tool: plan tools are never gated", n)
		}
	}
	return g, nil
}
