package plan

import "github.com/einoplan/plan/internal/agentrun"

// DigestConfig bounds the plan digest appended to the instruction at the start of each
// run. The digest stays the same between the model calls of a run, so prompt caching keeps
// working, until the run's history is rewritten (a summarization middleware compacted it):
// the model call that first sees the rewritten history reads a fresh digest, whatever the
// order of the agent's handlers (see WrapModel in digest.go).
type DigestConfig = agentrun.DigestConfig

// GatedCall reports one call of a gated tool (Config.GatedTools), before it runs: who called
// what, and under which hold. A call runs only while Agent holds step Step of plan Plan,
// approved at Revision, its revision when the call was checked, and the step names Tool in
// its "(uses …)" (Uses; any held step with Config.GateAnyHeldStep). A refused call has
// Allowed false, Reason saying why, and Plan, Step, Revision and Uses of the hold or plan it
// lacked the approval or the naming of, when there is one.
type GatedCall = agentrun.GatedCall
