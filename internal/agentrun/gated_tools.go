package agentrun

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/einoplan/plan/internal/tools"
)

// gate is Config.GatedTools: the tools named, or with all every tool that is not a plan
// tool and does not start sub-agents.
type gate struct {
	all   bool
	names map[string]bool
}

// newGate reads Config.GatedTools. A name is matched exactly, after trimming the space
// around it; a name that could only be meant as a pattern or a phrase (space inside it, or a
// wildcard other than the whole name "*") is refused, since no tool has such a name and a
// name that matches no tool would gate nothing. A name that matches no tool of a run fails
// that run (checkToolsSeen).
func newGate(list []string) (*gate, error) {
	if len(list) == 0 {
		return nil, nil
	}
	g := &gate{names: map[string]bool{}}
	for _, raw := range list {
		n := strings.TrimSpace(raw)
		switch {
		case n == "*":
			g.all = true
		case n == "":
			return nil, fmt.Errorf("plan: GatedTools has an empty name")
		case strings.IndexFunc(n, unicode.IsSpace) >= 0:
			return nil, fmt.Errorf("plan: GatedTools name %q has a space: tool names have none, and names are matched exactly", raw)
		case strings.ContainsAny(n, "*?[]{}"):
			return nil, fmt.Errorf("plan: GatedTools name %q has a wildcard: names are matched exactly; \"*\" alone gates every tool", raw)
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

// carriedNames adds to out (made when nil) the GatedTools names of the plan middlewares of
// agent, a value read from an Eino agent tool, and "*" for one gating every tool; it returns
// out.
func carriedNames(out map[string]bool, agent reflect.Value) map[string]bool {
	if out == nil {
		out = map[string]bool{}
	}
	planGates(agent, 0, func(g reflect.Value) {
		if g.FieldByName("all").Bool() {
			out["*"] = true
		}
		for _, k := range g.FieldByName("names").MapKeys() {
			out[k.String()] = true
		}
	})
	return out
}
