package agentrun

import (
	"testing"

	"github.com/einoplan/plan/internal/document"
)

// A run started in a tool call keeps the name it acts as after the call returned, for as
// long as the run lasts (a sub-agent run in the background); the name is free again only
// when both are over.
func TestARunKeepsItsNameUntilItEnds(t *testing.T) {
	names := &agentNames{}
	call := &callToken{tool: "task", args: `{"subagent_type":"worker"}`, names: names, starters: deepTask}
	call.begin()
	if got := call.agentName(); got != "worker" {
		t.Fatalf("name %q", got)
	}
	call.runStarted()
	call.release() // the tool call returned; the run goes on
	second := &callToken{tool: "task", args: `{"subagent_type":"worker"}`, names: names, starters: deepTask}
	second.begin()
	if got := second.agentName(); got != "worker"+runSep+"2" {
		t.Fatalf("a run started while the first still runs is %q", got)
	}
	second.release()
	call.runEnded()
	if len(names.inUse) != 0 {
		t.Fatalf("names left in use: %v", names.inUse)
	}
}

// Real agent names map one-to-one onto actors, and no actor has the run separator, so a run
// name ("worker·2") never equals a real agent's actor, nor its holder name.
func TestRunNamesNeverEqualARealAgent(t *testing.T) {
	real := []string{"worker", "worker-2", "worker·2", "worker%C2%B72", "50%", "50%25", "a·b·c"}
	seen := map[string]string{}
	holders := map[string]string{}
	for _, name := range real {
		actor := agentActor(name)
		if other, dup := seen[actor]; dup {
			t.Fatalf("%q and %q act as %q", name, other, actor)
		}
		seen[actor] = name
		holders[document.HolderName(actor)] = name
		for _, r := range actor {
			if string(r) == runSep {
				t.Fatalf("%q acts as %q, which has the run separator", name, actor)
			}
		}
	}
	names := &agentNames{}
	names.take("worker")
	run := names.take("worker")
	if _, clash := seen[run]; clash {
		t.Fatalf("run name %q equals a real agent's", run)
	}
	if _, clash := holders[document.HolderName(run)]; clash {
		t.Fatalf("run holder %q equals a real agent's", document.HolderName(run))
	}
}
