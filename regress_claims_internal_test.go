package plan

import "testing"

// Only a deep agent's task tool names the sub-agent it starts; any other tool's arguments
// are the model's and name nobody.
func TestRegressDelegatedAgentOnlyFromTheTaskTool(t *testing.T) {
	for _, tc := range []struct {
		call callToken
		want string
	}{
		{callToken{tool: "task", args: `{"subagent_type":"worker-a","description":"x"}`}, "worker-a"},
		{callToken{tool: "worker", args: `{"request":"x","subagent_type":"worker-a"}`}, "worker"},
		{callToken{tool: "task", args: `{"description":"x"}`}, "task"},
	} {
		if got := delegatedAgent(&tc.call); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.call, got, tc.want)
		}
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
