package plan

import (
	"strconv"
	"strings"
	"sync"
)

// A sub-agent's run acts as the agent it was started as, so the steps it takes are held
// under that name. Two runs of one sub-agent at once (a deep agent's task tool called twice
// in one turn) must not share a name, or each could finish the other's steps: the second
// is "name-2", and so on, for as long as its tool call lasts. A later run under the same
// name is the same agent coming back, so it can finish the steps an earlier run took.

// callToken is one tool call of an agent using this package: a run started inside it is a
// sub-agent's, named after what the call started.
type callToken struct {
	tool, args string      // the call's tool and arguments, to name the agent it starts
	names      *agentNames // the names in use among the calling agent's running sub-agents
	once       sync.Once
	agent      string // the name taken, once a run started inside the call asked for it
}

// agentName is the name the runs started inside the call act as; "" outside any call.
func (c *callToken) agentName() string {
	if c == nil {
		return ""
	}
	c.once.Do(func() {
		if name := delegatedAgent(c); name != "" && c.names != nil {
			c.agent = c.names.take(name)
		}
	})
	return c.agent
}

// release frees the call's name when the call ends.
func (c *callToken) release() {
	c.once.Do(func() {}) // no name can be taken once the call is over
	if c.agent != "" {
		c.names.release(c.agent)
	}
}

// deepTaskTool is the tool through which a deep agent (adk/prebuilt/deep) starts its
// sub-agents, naming the one to start in subagent_type.
const deepTaskTool = "task"

// delegatedAgent names the agent a tool call starts: the subagent_type of a deep agent's
// task call, else the tool's own name (an agent used as a tool is named after the agent).
// Only the task tool's argument is read, so a model cannot name itself in another call.
func delegatedAgent(call *callToken) string {
	if call.tool == deepTaskTool && strings.Contains(call.args, `"subagent_type"`) {
		var a struct {
			SubagentType string `json:"subagent_type"`
		}
		if resultAPI.UnmarshalFromString(call.args, &a) == nil && a.SubagentType != "" {
			return a.SubagentType
		}
	}
	return call.tool
}

// agentNames are the names in use by the running sub-agents of one agent.
type agentNames struct {
	mu    sync.Mutex
	inUse map[string]bool
}

// take returns name, or name-2, name-3, ... when name is in use, and marks it in use. The
// result is a holder name (HolderName), so it reads back from a step's tag as it is.
func (a *agentNames) take(name string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inUse == nil {
		a.inUse = map[string]bool{}
	}
	base := holderName(name)
	taken := base
	for n := 2; a.inUse[taken]; n++ {
		suffix := "-" + strconv.Itoa(n)
		taken = truncateUTF8(base, maxHolderLen-len(suffix)) + suffix
	}
	a.inUse[taken] = true
	return taken
}

func (a *agentNames) release(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.inUse, name)
}
