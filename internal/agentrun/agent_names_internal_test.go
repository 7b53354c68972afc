package agentrun

import (
	"strings"
	"testing"

	"github.com/einoplan/plan/internal/document"
)

// deepTask are the starters of a run whose only starter is a deep agent's task tool.
var deepTask = map[string]*starter{"task": {Kind: deepTaskStarter}}

// Only an agent starter names the sub-agent it starts, read as the starter reads its
// arguments; any other tool's arguments are the model's and name nobody, whatever the tool
// is called.
func TestDelegatedAgentIsNamedOnlyByAStarter(t *testing.T) {
	starters := map[string]*starter{"task": {Kind: deepTaskStarter}, "agent": {Kind: subagentToolStarter},
		"reviewer": {Kind: agentToolStarter}}
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"task", `{"subagent_type":"worker-a","description":"x"}`, "worker-a"},
		{"task", `{"SUBAGENT_TYPE":"worker-b","description":"x"}`, "worker-b"},
		{"task", `{"subagent\u005ftype":"worker-b"}`, "worker-b"},
		{"task", `{"\u017fubagent_type":"worker-b"}`, "worker-b"}, // encoding/json folds ſ to s
		{"task", `{"subagent_type":"worker-a","Subagent_Type":"worker-b"}`, "worker-b"},
		{"task", `{"description":"x"}`, "task"},
		{"task", `not json`, "task"},
		{"agent", `{"subagent_type":"reviewer","prompt":"x"}`, "reviewer"},
		{"agent", `{"SUBAGENT_TYPE":"reviewer"}`, "reviewer"},
		{"reviewer", `{"request":"x","subagent_type":"boss"}`, "reviewer"},
		{"worker", `{"request":"x","subagent_type":"worker-a"}`, "worker"},
		{"delegate", `{"subagent_type":"worker-a"}`, "delegate"},
	} {
		if got := delegatedAgent(&callToken{tool: tc.tool, args: tc.args, starters: starters}); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
	if got := delegatedAgent(&callToken{tool: "task", args: `{"subagent_type":"worker-a"}`}); got != "task" {
		t.Errorf("a tool named task that is no starter named %q", got)
	}
}

// Runs of one sub-agent at once get names of their own while their calls last.
func TestRunsOfOneSubAgentAtOnceGetTheirOwnNames(t *testing.T) {
	names := &agentNames{}
	call := func() *callToken {
		return &callToken{tool: "task", args: `{"subagent_type":"general purpose"}`, names: names, starters: deepTask}
	}
	a, b, c := call(), call(), call()
	if got := []string{a.agentName(), b.agentName(), c.agentName(), a.agentName()}; got[0] != "general purpose" ||
		got[1] != "general purpose·2" || got[2] != "general purpose·3" || got[3] != got[0] {
		t.Fatalf("names %q", got)
	}
	b.release()
	if d := call(); d.agentName() != "general purpose·2" {
		t.Fatalf("a released name is taken again: %q", d.agentName())
	}
	a.release()
	c.release()
	if len(names.inUse) != 1 {
		t.Fatalf("names left in use: %v", names.inUse)
	}
	var none *callToken
	if none.agentName() != "" {
		t.Fatal("no call, no name")
	}
}

// Second runs of two agents whose long names share their first bytes hold steps under two
// names, each no longer than a holder name may be.
func TestParallelRunsOfLongNamedAgentsStayApart(t *testing.T) {
	prefix := strings.Repeat("research-assistant-", 4)
	second := func(agent string) string {
		names := &agentNames{}
		call := func() *callToken {
			return &callToken{tool: "task", args: `{"subagent_type":"` + agent + `"}`, names: names, starters: deepTask}
		}
		a, b := call(), call()
		a.agentName()
		return document.HolderName(b.agentName())
	}
	na, nb := second(prefix+"alpha"), second(prefix+"beta")
	if na == nb {
		t.Fatalf("both second runs hold steps as %q", na)
	}
	for _, n := range []string{na, nb} {
		if len(n) > document.MaxHolderLen || !strings.HasSuffix(n, runSep+"2") || !document.ValidHolder(n) {
			t.Errorf("second run named %q (%d bytes)", n, len(n))
		}
	}
}
