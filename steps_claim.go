package plan

import (
	"strings"
	"unicode/utf8"
)

// A step in progress can be held by one agent: its line then ends with " (@holder)", e.g.
// "- [~] Build the API (@worker-2)", so people read who works on what in the plan itself.
// The Store writes the tag when an agent moves a step to in_progress, and refuses moves of a
// held step by anyone else (CodeStepHeld) unless they take it over.

const maxHolderLen = 64

// holderTag is what a claim appends to a step's line.
func holderTag(holder string) string { return " (@" + holder + ")" }

// HolderName is the name an agent holds steps under: its name with white space, parentheses
// and control characters replaced by "-", cut to 64 bytes, so the tag reads back as written.
// "" stays "" (nobody: the step is in progress but not held).
func holderName(agent string) string {
	agent = strings.Map(func(r rune) rune {
		if r <= ' ' || r == '(' || r == ')' || r == 0x7f || r == utf8.RuneError {
			return '-'
		}
		return r
	}, agent)
	return truncateUTF8(agent, maxHolderLen)
}

// splitHolder returns a step text without its trailing holder tag, and the holder it names
// ("" when the text ends in no tag).
func splitHolder(text string) (rest, holder string) {
	if !strings.HasSuffix(text, ")") {
		return text, ""
	}
	i, skip := strings.LastIndex(text, " (@"), 3
	if i < 0 && strings.HasPrefix(text, "(@") {
		i, skip = 0, 2 // a step with no text of its own
	}
	if i < 0 {
		return text, ""
	}
	name := text[i+skip : len(text)-1]
	if name == "" || name != holderName(name) {
		return text, ""
	}
	return text[:i], name
}

// holderOf is who holds step s: only a step in progress is held.
func holderOf(s Step) string {
	if s.State != StepInProgress {
		return ""
	}
	_, h := splitHolder(s.Text)
	return h
}

// NextStep returns the first pending step: the one an agent looking for work takes (steps in
// progress belong to whoever moved them); ok is false when no step is pending.
func nextFreeStep(steps []Step) (step Step, ok bool) {
	for _, s := range steps {
		if s.State == StepPending {
			return s, true
		}
	}
	return Step{}, false
}
