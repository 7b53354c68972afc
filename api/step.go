package api

import (
	"fmt"
	"strings"
	"time"
)

// StepState is the state of one checklist step. Each state has exactly one marker character
// inside the step's brackets, so a state is always read from and written to the plan body.
type StepState string

// The step states, with the marker each one is written as.
const (
	StepPending    StepState = "pending"     // "[ ]"
	StepInProgress StepState = "in_progress" // "[~]"
	StepCompleted  StepState = "completed"   // "[x]"; "[X]" is read as completed too
	StepFailed     StepState = "failed"      // "[!]"
	StepSkipped    StepState = "skipped"     // "[-]"
)

// Step is one checklist item of a plan body. Number, Depth and Line are derived from the
// body's block structure; State and Text are read from the line that holds the marker.
type Step struct {
	Number int       `json:"number"` // 1-based position among the steps, in document order
	State  StepState `json:"status"`
	Text   string    `json:"text"` // everything after the marker and one space on its line, without the line ending
	Depth  int       `json:"-"`    // nesting among steps: 0 for a step no other step's list item encloses
	Line   int       `json:"-"`    // 0-based index of the marker's line, lines being split at "\n"
	// Holder is the agent that holds a step in progress: the name its text ends with as
	// " (@name)"; "" for any other step.
	Holder string `json:"holder,omitempty"`
	// After lists the steps this one waits for, ascending: the numbers of the "(after 2, 3)"
	// its text ends with (before any note and holder tag). Text keeps them as
	// written. nil when it waits for none.
	After []int `json:"after,omitempty"`
	// Uses are the gated tools the step may use (Config.GatedTools), sorted: the names of
	// the "(uses deploy_prod, write_file)" its text ends with. Text keeps
	// them as written. nil when it names none: then it unlocks no gated tool.
	Uses []string `json:"uses,omitempty"`
	// Proof are the tools whose passing call proves the step done, sorted: the names of the
	// "(proof run_tests)" its text ends with. An agent completes such a step only after the
	// host saw it call one of them, under its hold, after its last call of the step's other
	// "(uses …)" tools, and the call passed (the unproven code). nil when it names none.
	Proof []string `json:"proof,omitempty"`
	// Evidence is what its completion said shows the step done: the text after the
	// " — evidence: " its line ends with; "" for none. It is what the agent typed.
	Evidence string `json:"evidence,omitempty"`
	// Observed is what the host saw prove a completed step (or one awaiting review): the
	// text after the " — observed: " its line carries, "run_tests passed 12:03:04Z". Only
	// the Store writes it, on an agent's completion of a "(proof …)" step; a body written
	// whole that adds or changes one is refused. "" for none.
	Observed string `json:"observed,omitempty"`
	// Review: the step's own text ends with "(review)", so whoever did it cannot complete it
	//.
	Review bool `json:"review,omitempty"`
	// AwaitingReview: the step was completed by DoneBy ("" for an agent with no name) and
	// waits, in_progress and held by nobody, for another agent or a person to complete it.
	AwaitingReview bool   `json:"awaiting_review,omitempty"`
	DoneBy         string `json:"done_by,omitempty"`
	// Cost is what the step cost while an agent held it, as its line says;
	// nil when it says nothing. Shared by every copy of the step: do not modify it.
	Cost *StepCost `json:"cost,omitempty"`
	// Budget is what the step may cost, as its own text ends with "(budget 20k tokens)",
	// "(budget 10m)" or both; nil for none. Shared: do not modify it.
	Budget *Budget `json:"budget,omitempty"`
	// OverBudget: the cost its line records went over its own budget. A step in progress
	// records no cost until it leaves in_progress; what its run spends meanwhile is the
	// gate's to judge (over_budget), not this field's.
	OverBudget bool `json:"over_budget,omitempty"`
}

// StepCost is what one step cost while an agent held it, or what steps cost together.
type StepCost struct {
	PromptTokens     int64 `json:"prompt_tokens,omitempty"`
	CompletionTokens int64 `json:"completion_tokens,omitempty"`
	// ModelCalls counts the model calls; NoUsage those of them whose model reported no usage,
	// so their tokens are not in the counts.
	ModelCalls int `json:"model_calls"`
	NoUsage    int `json:"no_usage,omitempty"`
	ToolCalls  int `json:"tool_calls"`
	// Seconds is the wall time, in whole seconds.
	Seconds int64 `json:"seconds"`
}

// Budget bounds what one step, or a whole plan, may cost. Zero fields bound nothing.
type Budget struct {
	Tokens int64         `json:"tokens,omitempty"` // prompt and completion tokens together
	Time   time.Duration `json:"time,omitempty"`   // wall time
}

// WithoutHolder is the step's text without the tag " (@holder)" of the agent holding it:
// what the step says, whoever holds it. It is Text for a step no agent holds.
func (s Step) WithoutHolder() string {
	if s.Holder == "" {
		return s.Text
	}
	rest, _ := SplitHolder(s.Text)
	return rest
}

// String is the cost as a step's line carries it after " — cost: ", which is how the
// Store reads it back: "1200+340 tokens, 3 calls, 2 tools, 41s".
func (c StepCost) String() string {
	var b strings.Builder
	if c.NoUsage < c.ModelCalls {
		fmt.Fprintf(&b, "%d+%d tokens, ", c.PromptTokens, c.CompletionTokens)
	}
	fmt.Fprintf(&b, "%d %s", c.ModelCalls, plural(c.ModelCalls, "call"))
	if c.NoUsage > 0 {
		fmt.Fprintf(&b, " (%d without usage)", c.NoUsage)
	}
	fmt.Fprintf(&b, ", %d %s, %ds", c.ToolCalls, plural(c.ToolCalls, "tool"), c.Seconds)
	return b.String()
}

// plural is word for a count of n: "1 call", "2 calls".
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// TotalCost is what steps cost together, as their lines say: the sum of the Cost of each
// step that carries one, and nil when none does. It is the one total the tools, the board
// and planctl show.
func TotalCost(steps []Step) *StepCost {
	var total *StepCost
	for _, s := range steps {
		if s.Cost == nil {
			continue
		}
		if total == nil {
			total = &StepCost{}
		}
		c := *s.Cost
		total.PromptTokens += c.PromptTokens
		total.CompletionTokens += c.CompletionTokens
		total.ModelCalls += c.ModelCalls
		total.NoUsage += c.NoUsage
		total.ToolCalls += c.ToolCalls
		total.Seconds += c.Seconds
	}
	return total
}
