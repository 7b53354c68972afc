package agentrun

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/einoplan/plan/internal/tools"
)

// gate is Config.GatedTools: the tools named, or with all every tool that is not a plan
// tool, does not start sub-agents and is not free (Config.UngatedTools).
type gate struct {
	all   bool
	names map[string]bool
	free  map[string]bool
}

// newGate reads Config.GatedTools and Config.UngatedTools. A name is matched exactly, after
// trimming the space around it; a name that could only be meant as a pattern or a phrase
// (space inside it, or a wildcard other than the whole GatedTools name "*") is refused, since
// no tool has such a name and a name that matches no tool would gate nothing. A name that
// matches no tool of a run fails that run (checkToolsSeen). Free names are refused unless
// "*" gates every tool, and when GatedTools names them too: either would be a set-up that
// does not mean what it says.
func newGate(list, free []string) (*gate, error) {
	if len(list) == 0 {
		if len(free) > 0 {
			return nil, fmt.Errorf("plan: UngatedTools leaves tools free under GatedTools \"*\", and GatedTools is empty")
		}
		return nil, nil
	}
	g := &gate{names: map[string]bool{}, free: map[string]bool{}}
	for _, raw := range list {
		if strings.TrimSpace(raw) == "*" {
			g.all = true
			continue
		}
		n, err := toolName("GatedTools", raw)
		if err != nil {
			return nil, err
		}
		g.names[n] = true
	}
	for _, raw := range free {
		n, err := toolName("UngatedTools", raw)
		switch {
		case err != nil:
			return nil, err
		case !g.all:
			return nil, fmt.Errorf("plan: UngatedTools names %q, but GatedTools has no \"*\": only tools \"*\" gates can be left free", n)
		case g.names[n]:
			return nil, fmt.Errorf("plan: GatedTools and UngatedTools both name %q", n)
		}
		g.free[n] = true
	}
	for _, n := range tools.DefaultToolNames {
		if g.names[n] && n != tools.ToolExportPlanToFile { // gated anyway: see gatesExport
			return nil, fmt.Errorf("plan: GatedTools names %q, a plan tool: plan tools are never gated", n)
		}
		if g.free[n] {
			return nil, fmt.Errorf("plan: UngatedTools names %q, a plan tool: plan tools are never gated, and export_plan_to_file always is", n)
		}
	}
	return g, nil
}

// toolName reads one name of the list field: trimmed, with no space inside and no wildcard.
func toolName(field, raw string) (string, error) {
	n := strings.TrimSpace(raw)
	switch {
	case n == "":
		return "", fmt.Errorf("plan: %s has an empty name", field)
	case strings.IndexFunc(n, unicode.IsSpace) >= 0:
		return "", fmt.Errorf("plan: %s name %q has a space: tool names have none, and names are matched exactly", field, raw)
	case strings.ContainsAny(n, "*?[]{}"):
		return "", fmt.Errorf("plan: %s name %q has a wildcard: names are matched exactly; \"*\" alone in GatedTools gates every tool", field, raw)
	}
	return n, nil
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
