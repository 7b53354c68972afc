package agentrun

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/bytedance/sonic"
	"github.com/einoplan/plan/internal/document"
)

// A sub-agent's run acts as the agent it was started as, so the steps it takes are held
// under that name. Two runs of one sub-agent at once (a deep agent's task tool called twice
// in one turn) must not share a name, or each could finish the other's steps: the second
// is "name·2", and so on, for as long as its run lasts. A later run under the same name is
// the same agent coming back, so it can finish the steps an earlier run took.
//
// runSep, the "·" (U+00B7) of those run names, is a character no agent name has here:
// agentActor writes a real agent's "·" (and "%", to stay one-to-one) as %XX, so "worker·2"
// is always a run of "worker" and never an agent of that name, and holderName keeps the
// two apart in every step tag.

// runSep separates an agent's name from the number of a parallel run of it.
const runSep = document.RunSep

// actorEscaper writes the characters agentActor reserves.
var actorEscaper = strings.NewReplacer("%", "%25", runSep, "%C2%B7")

// agentActor is who a real agent named name acts as: name itself unless it holds "%" or
// runSep, which are escaped. Distinct names stay distinct, and no result contains runSep.
func agentActor(name string) string {
	if !strings.ContainsAny(name, "%"+runSep) {
		return name
	}
	return actorEscaper.Replace(name)
}

// callToken is one tool call of an agent using this package: a run started inside it is a
// sub-agent's, named after what the call started.
type callToken struct {
	tool, args string      // the call's tool and arguments, to name the agent it starts
	names      *agentNames // the names in use among the calling agent's running sub-agents
	// starters are the agent starters among the calling run's tools (starters.go).
	starters map[string]*starter
	once     sync.Once
	agent    string // the name taken, once a run started inside the call asked for it

	mu    sync.Mutex
	holds int // the call itself while it lasts, plus every run started in it until it ends
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

// begin counts the call as in progress; release ends it.
func (c *callToken) begin() {
	c.mu.Lock()
	c.holds++
	c.mu.Unlock()
}

// runStarted keeps the call's name taken while a run started in it lasts, even after the
// call returned (a sub-agent run in the background); runEnded lets it go.
func (c *callToken) runStarted() {
	if c != nil {
		c.begin()
	}
}

func (c *callToken) runEnded() {
	if c != nil {
		c.release()
	}
}

// release drops one hold on the call's name: the name is free again once the call and every
// run started in it are over.
func (c *callToken) release() {
	c.once.Do(func() {}) // no name can be taken once the call is over
	c.mu.Lock()
	if c.holds > 0 {
		c.holds--
	}
	last := c.holds == 0
	c.mu.Unlock()
	if last && c.agent != "" {
		c.names.release(c.agent)
	}
}

// runName is the name of the agent a call of the starter with args starts, decoded as the
// starter decodes it; "" when the arguments name none.
func (s *starter) runName(tool, args string) string {
	switch s.Kind {
	case agentToolStarter:
		return tool
	case deepTaskStarter:
		var a struct { // the deep task tool's own argument type, read with its own decoder
			SubagentType string `json:"subagent_type"`
			Description  string `json:"description"`
		}
		if json.Unmarshal([]byte(args), &a) == nil {
			return a.SubagentType
		}
	case subagentToolStarter:
		var a struct {
			SubagentType string `json:"subagent_type"`
		}
		if sonic.UnmarshalString(args, &a) == nil {
			return a.SubagentType
		}
	}
	return ""
}

// delegatedAgent names the agent a tool call starts: for one of Eino's agent starters, the
// agent it starts, read from the call's arguments as the starter itself reads them; for any
// other tool, the tool's own name. The model's text names a run only through a starter, and
// then only the agent the starter really runs.
func delegatedAgent(call *callToken) string {
	if s := call.starters[call.tool]; s != nil {
		if name := s.runName(call.tool, call.args); name != "" {
			return name
		}
	}
	return call.tool
}

// startsGuardedAgent reports whether the call is of an agent starter and starts an agent
// that has a plan middleware gating every tool.
func (c *callToken) startsGuardedAgent() bool {
	s := c.starters[c.tool]
	return s != nil && s.Guarded[s.runName(c.tool, c.args)]
}

// agentNames are the names in use by the running sub-agents of one agent.
type agentNames struct {
	mu    sync.Mutex
	inUse map[string]bool
}

// take returns the actor of name, or that actor with "·2", "·3", ... when it is in use, and
// marks the result in use.
func (a *agentNames) take(name string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inUse == nil {
		a.inUse = map[string]bool{}
	}
	base := agentActor(name)
	taken := base
	for n := 2; a.inUse[taken]; n++ {
		taken = runName(base, n)
	}
	a.inUse[taken] = true
	return taken
}

// runName is base's name for its n-th parallel run, "base·n", at most maxHolderLen bytes:
// a base cut to fit keeps a hash of all of it, as holderName does, so two agents whose long
// names share their start never run under one name.
func runName(base string, n int) string {
	suffix := runSep + strconv.Itoa(n)
	if len(base)+len(suffix) <= document.MaxHolderLen {
		return base + suffix
	}
	return document.CutKeepingHash(base, document.MaxHolderLen-len(suffix)) + suffix
}

func (a *agentNames) release(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.inUse, name)
}
