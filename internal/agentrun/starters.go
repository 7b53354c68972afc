package agentrun

import (
	"context"
	"reflect"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// Agent starters are the tools of Eino that run a sub-agent inside their call. They are
// recognised by what they are (their Go type, as Eino builds them), never by their name or
// the parameters they declare, so no other tool can name the run it starts, and the name a
// starter's run acts as is read from the call's arguments exactly as the starter reads them:
//
//   - adk.NewAgentTool / NewTypedAgentTool: runs its agent, named as the tool (the agent's
//     name);
//   - the task tool of adk/prebuilt/deep: runs the sub-agent its subagent_type names, decoded
//     with encoding/json as the task tool does (keys in any case, escapes);
//   - the agent tool of Eino's next line (adk/middlewares/subagent): runs the sub-agent its
//     subagent_type names, decoded with sonic as that tool does. No such type exists in
//     Eino v0.9, so there nothing matches it.
//
// A starter's run is a sub-agent's only when that sub-agent has a plan middleware; a starter
// whose sub-agent has one gating every tool ("*") is not gated itself under "*".

var (
	// Eino's agent tool and chat model agent, as Eino builds them.
	agentToolTypes = map[reflect.Type]bool{
		reflect.TypeOf(adk.NewAgentTool(context.Background(), nil)):                              true,
		reflect.TypeOf(adk.NewTypedAgentTool[*schema.AgenticMessage](context.Background(), nil)): true,
	}
	chatModelAgentTypes = map[reflect.Type]bool{
		reflect.TypeOf(adk.ChatModelAgent{}):                              true,
		reflect.TypeOf(adk.TypedChatModelAgent[*schema.AgenticMessage]{}): true,
	}
	// exitToolType is adk's exit tool; transfer_to_agent's type is unexported (see
	// einoControlTool).
	exitToolType = reflect.TypeOf(adk.ExitTool{})
	// thisPackage is the import path of this package, whose Middleware types any
	// instantiation of a plan middleware is.
	thisPackage = reflect.TypeOf(agentNames{}).PkgPath()
)

const (
	einoADK      = "github.com/cloudwego/eino/adk"
	einoDeep     = "github.com/cloudwego/eino/adk/prebuilt/deep"
	einoToolUtil = "github.com/cloudwego/eino/components/tool/utils"
	einoSubagent = "github.com/cloudwego/eino/adk/middlewares/subagent"
)

// starterOf recognises t as one of Eino's agent starters; nil when it is none.
func starterOf(t tool.BaseTool, name string) *starter {
	v := reflect.ValueOf(t)
	typ := v.Type()
	switch {
	case agentToolTypes[typ]:
		agent := v.Elem().FieldByName("agent")
		return &starter{Kind: agentToolStarter, Guarded: map[string]bool{name: gatesEveryTool(agent, 0)}, Carries: carriedNames(nil, agent)}
	case isDeepTaskTool(typ):
		s := &starter{Kind: deepTaskStarter, Guarded: map[string]bool{}, Carries: map[string]bool{}}
		if m := v.Elem().FieldByName("subAgents"); m.Kind() == reflect.Map && m.Type().Key().Kind() == reflect.String {
			for it := m.MapRange(); it.Next(); {
				at := it.Value()
				for at.Kind() == reflect.Interface && !at.IsNil() {
					at = at.Elem()
				}
				if agentToolTypes[at.Type()] {
					s.Guarded[it.Key().String()] = gatesEveryTool(at.Elem().FieldByName("agent"), 0)
					carriedNames(s.Carries, at.Elem().FieldByName("agent"))
				}
			}
		}
		return s
	case isSubagentTool(typ):
		// Its sub-agents are held in a closure, out of reach: it is gated under "*".
		return &starter{Kind: subagentToolStarter}
	}
	return nil
}

// isStarterType: typ is the type of one of Eino's agent starters.
func isStarterType(typ reflect.Type) bool {
	return agentToolTypes[typ] || isDeepTaskTool(typ) || isSubagentTool(typ)
}

// isDeepTaskTool: typ is the task tool of Eino's adk/prebuilt/deep (typedTaskTool[M]).
func isDeepTaskTool(typ reflect.Type) bool {
	if typ.Kind() != reflect.Pointer {
		return false
	}
	e := typ.Elem()
	return e.PkgPath() == einoDeep && strings.HasPrefix(e.Name(), "typedTaskTool[")
}

// isSubagentTool: typ is the agent tool of Eino's next line (adk/middlewares/subagent), a
// components/tool/utils tool whose input is that package's agentInput or agentManagedInput.
func isSubagentTool(typ reflect.Type) bool {
	if typ.Kind() != reflect.Pointer {
		return false
	}
	e := typ.Elem()
	return e.PkgPath() == einoToolUtil && (strings.HasPrefix(e.Name(), "invokableTool["+einoSubagent+".agentInput,") ||
		strings.HasPrefix(e.Name(), "invokableTool["+einoSubagent+".agentManagedInput,"))
}

// einoControlTool: t is adk's exit or transfer_to_agent tool, which end or hand over the
// run and have no effect of their own.
func einoControlTool(t tool.BaseTool) bool {
	typ := reflect.TypeOf(t)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	return typ == exitToolType || typ.PkgPath() == einoADK && typ.Name() == "transferToAgent"
}

// gatesEveryTool reports whether agent (a value read from an Eino agent tool) is a chat model
// agent, possibly wrapped by adk's flow agent, that has a plan middleware gating every tool.
// It only reads: nothing of the agent runs.
func gatesEveryTool(agent reflect.Value, depth int) bool {
	all := false
	planGates(agent, depth, func(g reflect.Value) { all = all || g.FieldByName("all").Bool() })
	return all
}

// planGates calls visit with the gate (a gate struct, read only) of each plan middleware of
// agent that gates something, agent being a value read from an Eino agent tool: a chat model
// agent, possibly wrapped by adk's flow agent. Nothing of the agent runs.
func planGates(agent reflect.Value, depth int, visit func(g reflect.Value)) {
	for agent.IsValid() && (agent.Kind() == reflect.Interface || agent.Kind() == reflect.Pointer) {
		if agent.IsNil() {
			return
		}
		agent = agent.Elem()
	}
	if !agent.IsValid() || agent.Kind() != reflect.Struct || depth > 4 {
		return
	}
	typ := agent.Type()
	if chatModelAgentTypes[typ] {
		handlers := agent.FieldByName("handlers")
		if handlers.Kind() != reflect.Slice {
			return
		}
		for i := 0; i < handlers.Len(); i++ {
			h := handlers.Index(i)
			for h.Kind() == reflect.Interface && !h.IsNil() {
				h = h.Elem()
			}
			if !h.IsValid() || !isPlanMiddleware(h.Type()) || h.IsNil() {
				continue
			}
			if g := h.Elem().FieldByName("gated"); g.Kind() == reflect.Pointer && !g.IsNil() {
				visit(g.Elem())
			}
		}
		return
	}
	if typ.PkgPath() == einoADK && (typ.Name() == "flowAgent" || strings.HasPrefix(typ.Name(), "typedFlowAgent[")) {
		for _, f := range []string{"Agent", "TypedAgent"} {
			if inner := agent.FieldByName(f); inner.IsValid() {
				planGates(inner, depth+1, visit)
				return
			}
		}
	}
}

// isPlanMiddleware reports whether t is a *Middleware of this package, for any message type.
func isPlanMiddleware(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().PkgPath() == thisPackage && strings.HasPrefix(t.Elem().Name(), "Middleware[")
}
