package agentrun

import (
	"context"
	"crypto/sha256"
	"slices"
	"sync"

	"github.com/cloudwego/eino/components/tool"
	"github.com/einoplan/plan/internal/tools"
)

// What a middleware knows of the run a call is in: whether there is one, which tool call
// started it, the role it has and the agent it acts as.

// runKey marks a context as being inside a run of an agent that uses this package; its
// value is a runMark.
type runKey struct{}

// callKey marks the context of one tool call of such an agent; its value is a fresh
// *callToken per call, so every call is told apart even when a model sends no call IDs.
type callKey struct{}

// runMark says in which tool call a run was started (nil: outside any), and whether it is a
// sub-agent's. A run started in another tool call than the marked one is a sub-agent's; one
// in the same call is the same run, seen by a second plan middleware.
type runMark struct {
	call   *callToken
	nested bool
	// peers is shared by the plan middlewares of the run (run_tools_check.go).
	peers *runPeers
}

// runState is what one middleware keeps for one run: its role, who it acts as, its
// language, and the digest it showed.
type runState struct {
	role  tools.Role
	agent string // who the run's changes are by, and who holds the steps it takes
	set   *toolSet
	// call is the tool call the run was started in, when it is a sub-agent's run.
	call *callToken
	// renamed: the run acts under a name of its own (a parallel run of one sub-agent).
	renamed bool

	mu sync.Mutex
	// starters are the run's agent starters (starters.go); exempt the tools of the run
	// that "*" never gates.
	starters map[string]*starter
	exempt   map[string]bool
	// exports are the export_plan_to_file tools of every plan middleware of the run: they
	// write Workspace files, so a gating middleware gates them all.
	exports map[string]bool
	// fileTools are the run's renamed Eino filesystem tools, by name (fs_guard_names.go).
	fileTools map[string]string
	// peers are the run's plan middlewares' export tools; early the tools BeforeAgent saw,
	// and toolsChecked whether the first model call checked the rest (run_tools_check.go).
	peers        *runPeers
	early        []tool.BaseTool
	toolsChecked bool

	digest runDigest
	// reminders tell the run of others' changes to its plans (reminders.go).
	reminders runReminders
	// costs measure the steps the run holds (costs.go).
	costs tools.RunCosts
	// order is the order the calls of the run's last model message take effect in (message_order.go).
	order callOrder
}

func inRun(ctx context.Context) bool {
	_, ok := ctx.Value(runKey{}).(runMark)
	return ok
}

// runDigest is the digest a run's instruction carries, after anchor (the plan instruction
// it follows): inHistory is the one the system message in the run's history holds, which
// the model reads unless text differs; text is the one the model saw last. last and count
// describe the input of the last model call, to notice a rewritten history.
type runDigest struct {
	mu        sync.Mutex
	anchor    string
	inHistory string
	text      string
	last      any
	lastKey   string // messageKey of last, once computed
	count     int
}

// sameAsLast reports whether msg is the last message of the previous model call's input.
func (d *runDigest) sameAsLast(msg any) bool {
	if msg == d.last {
		return true
	}
	if d.lastKey == "" {
		d.lastKey = messageKey(d.last)
	}
	return messageKey(msg) == d.lastKey
}

// messageKey identifies a message by its content: a hash of its JSON encoding.
func messageKey(msg any) string {
	b, err := tools.ResultAPI.Marshal(msg)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return string(sum[:])
}

// runReminders is what a run's reminders keep between its model calls.
type runReminders struct {
	mu sync.Mutex
	// seen is the revision of each plan the run works on as of its last look at it.
	seen map[string]int64
	// calls counts the run's model calls; last is the call that got the last reminder.
	calls, last int
	// scanned is how many input messages were already read for the run's plan tool calls.
	scanned int
	// advanced are the lines telling of steps the host moved on a proof (advance.go), for
	// the next model call; holding are the steps it handed the run, told again at every
	// later call while the run holds them.
	advanced []string
	holding  []handed
}

// handed is a step the host handed the run on a proof, and the line that says so.
type handed struct {
	step heldStep
	line string
}

// tell keeps line for the run's next model call, and the step the move handed the run
// (now.step.number 0: none) in place of the one handed before on plan.
func (r *runReminders) tell(line, plan string, now handed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.advanced = append(r.advanced, line)
	r.holding = slices.DeleteFunc(r.holding, func(h handed) bool { return h.step.plan == plan })
	if now.step.number > 0 {
		r.holding = append(r.holding, now)
	}
}

// delivered forgets the lines told: a model call that carried them has answered.
func (r *runReminders) delivered() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.advanced = nil
}
