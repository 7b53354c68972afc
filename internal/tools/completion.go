package tools

// Completion is a step completion about to land, as Config.Verify sees it: nothing of it is
// written until Verify returns nil.
type Completion struct {
	// Plan is the plan's name.
	Plan string
	// Step is the step's number, from 1.
	Step int
	// Text is the step's text as the plan has it now, without its holder's tag.
	Text string
	// Evidence is what the agent says shows the step done, folded to one line; for a
	// review's completion that gives none, the evidence its doer gave; "" for none.
	Evidence string
	// Agent is who completes it: the calling agent's name ("" for an agent with no name).
	Agent string
	// Revision is the plan's revision the completion was checked against; the completion
	// lands on it, or on a later one only where no change since touched the step.
	Revision int64
}
