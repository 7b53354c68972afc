package document

import (
	"context"
	"strconv"
	"strings"
)

// A person's edit fences the agents: a change made through the Store by a host that names
// who makes it (WithActor: planctl, the board, code), not by an agent's tool call, is
// recorded in the plan file
// (by_agent absent on its revision, fence carried forward, decisions.go), so every process sees it.
// An agent's stale move or status change based on a revision before it is never commuted
// past it: the agent is told to read what the person changed (read_plan with
// since_revision), then goes on. An approval fences nothing: it changes nothing an agent
// acts on; nor does a host's change that names nobody (automation, not a person).

// SettleHostMarks records on next, made by ctx over cur (nil: a create), whether a host made
// it, and the newest host change agents must read.
func SettleHostMarks(ctx context.Context, action Action, cur, next *Plan) {
	next.ByAgent = ByAgent(ctx)
	next.Fence = ""
	if cur != nil {
		next.Fence = cur.Fence
	}
	if !next.ByAgent && cur != nil && action != ActionApprove && ActorOf(ctx) != "" {
		next.Fence = strconv.FormatInt(next.Revision, 10) + " " + next.ChangedBy
	}
}

// fenceOf reads a fence value: the revision of the host change and who made it.
func fenceOf(p *Plan) (int64, string) {
	rev, who, _ := strings.Cut(p.Fence, " ")
	n, err := strconv.ParseInt(rev, 10, 64)
	if err != nil || n < 1 {
		return 0, ""
	}
	return n, who
}

// CheckFence refuses an agent's change based on revision want of cur when a host changed
// the plan after want: revision_conflict, naming who and since which revision to read.
func CheckFence(ctx context.Context, cur *Plan, want int64) error {
	if cur == nil || !ByAgent(ctx) {
		return nil
	}
	rev, who := fenceOf(cur)
	if rev <= want || rev > cur.Revision {
		return nil
	}
	return Fail(Error{Code: CodeRevisionConflict, Reason: reasonPersonChanged, Name: cur.Name,
		CurrentRevision: cur.Revision, Revision: want, Agent: who})
}
