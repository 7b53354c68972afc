package plan

import "testing"

// Only a deep agent's task tool names the sub-agent it starts; any other tool's arguments
// are the model's and name nobody.
func TestRegressDelegatedAgentOnlyFromTheTaskTool(t *testing.T) {
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
		got[1] != "general purpose-2" || got[2] != "general purpose-3" || got[3] != got[0] {
		t.Fatalf("names %q", got)
	}
	b.release()
	if d := call(); d.agentName() != "general purpose-2" {
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

// A takeover with a note leaves the list of steps as it was.
func TestRegressTakeoverWithANoteKeepsTheSteps(t *testing.T) {
	was := ParseSteps("- [~] design (@w1)\n- [ ] build\n")
	now := ParseSteps("- [~] design — w1 stopped (@w2)\n- [ ] build\n")
	if !sameStepList(was, now) {
		t.Fatal("a takeover with a note counted as a reworded step")
	}
	if sameStepList(was, ParseSteps("- [~] design it (@w2)\n- [ ] build\n")) {
		t.Fatal("a reworded step counted as a takeover")
	}
}

// A step with no text of its own, moved with a note or taken, keeps the list as it was.
func TestRegressEmptyStepMovedKeepsTheSteps(t *testing.T) {
	was := ParseSteps("- [ ]\n- [ ] build\n")
	for _, now := range []string{"- [x] — done\n- [ ] build\n", "- [~] (@w1)\n- [ ] build\n"} {
		if !sameStepList(was, ParseSteps(now)) {
			t.Errorf("%q counted as a changed list", now)
		}
	}
}
