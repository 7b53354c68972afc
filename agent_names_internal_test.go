package plan

import (
	"strings"
	"testing"
)

// Only a deep agent's task tool names the sub-agent it starts; any other tool's arguments
// are the model's and name nobody.
func TestDelegatedAgentIsNamedOnlyByTheTaskTool(t *testing.T) {
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"task", `{"subagent_type":"worker-a","description":"x"}`, "worker-a"},
		{"worker", `{"request":"x","subagent_type":"worker-a"}`, "worker"},
		{"task", `{"description":"x"}`, "task"},
	} {
		if got := delegatedAgent(&callToken{tool: tc.tool, args: tc.args}); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}

// Runs of one sub-agent at once get names of their own while their calls last.
func TestRunsOfOneSubAgentAtOnceGetTheirOwnNames(t *testing.T) {
	names := &agentNames{}
	call := func() *callToken {
		return &callToken{tool: "task", args: `{"subagent_type":"general purpose"}`, names: names}
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
			return &callToken{tool: "task", args: `{"subagent_type":"` + agent + `"}`, names: names}
		}
		a, b := call(), call()
		a.agentName()
		return holderName(b.agentName())
	}
	na, nb := second(prefix+"alpha"), second(prefix+"beta")
	if na == nb {
		t.Fatalf("both second runs hold steps as %q", na)
	}
	for _, n := range []string{na, nb} {
		if len(n) > maxHolderLen || !strings.HasSuffix(n, runSep+"2") || !validHolder(n) {
			t.Errorf("second run named %q (%d bytes)", n, len(n))
		}
	}
}
