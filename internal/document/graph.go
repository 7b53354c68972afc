package document

import (
	"slices"
	"strconv"
	"strings"
)

// A step may wait for others: its text ends with "(after 2, 3)" (in any order with other
// suffixes such as "(uses …)", steps_suffixes.go), before any note a move appended (" — note")
// and before its holder's tag, e.g. "- [~] Deploy (after 2, 3) (@w1)".
// The numbers are step numbers as ParseSteps counts them. A step is ready when every step it
// waits for is completed or skipped: a failed prerequisite blocks it until the plan is
// rewritten. The Store refuses a body whose prerequisites name a step that does not exist
// or wait for each other in a cycle, and a move of a step that is not ready to in_progress
// or completed (CodeStepBlocked).

// AfterOf reads the prerequisites of a step from its text: the numbers of its "(after …)",
// read among the suffixes that end the text before any notes (readSuffixes), in ascending
// order without repeats; nil when there is none.
func AfterOf(text string) []int {
	s := Step{Text: text}
	readSuffixes(&s)
	return s.After
}

// doneState reports whether a step in state st no longer holds up the steps after it.
func doneState(st StepState) bool { return st == StepCompleted || st == StepSkipped }

// WaitsOf lists the prerequisites of s among steps that are not completed or skipped, in
// ascending order; nil when s is ready. A number that names no step waits for nothing (only
// a file edited by hand can have one: the Store refuses such a body).
func WaitsOf(steps []Step, s Step) []int {
	var waits []int
	for _, n := range s.After {
		if n >= 1 && n <= len(steps) && n != s.Number && !doneState(steps[n-1].State) {
			waits = append(waits, n)
		}
	}
	if n := s.Number; n >= 1 && n <= len(steps) && slices.Contains(s.After, n) {
		waits = append(waits, n) // a step waiting for itself is never ready
		slices.Sort(waits)
	}
	return waits
}

// maxBlockers bounds the steps a no_ready_step answer names, so that it keeps its size
// however long the plan and however many agents work on it.
const maxBlockers = 8

// BlockingSteps is what holds up the pending steps of steps, none being ready: the
// unfinished steps they wait for, directly or through other pending steps, that are not
// pending themselves (held in progress, or failed), the lowest maxBlockers of them. Every
// chain of pending prerequisites ends at such a step, so each is a direct prerequisite of a
// pending step. Nil when no pending step waits for anything.
func BlockingSteps(steps []Step) []int {
	var blockers, waits []int
	for _, s := range steps {
		if s.State != StepPending {
			continue
		}
		for _, n := range WaitsOf(steps, s) {
			waits = append(waits, n)
			if steps[n-1].State != StepPending {
				blockers = append(blockers, n)
			}
		}
	}
	if blockers == nil {
		blockers = waits
	}
	slices.Sort(blockers)
	blockers = slices.Compact(blockers)
	return blockers[:min(len(blockers), maxBlockers)]
}

// CheckGraph refuses a body whose prerequisites name a step it does not have, or wait for
// each other in a cycle (a step waiting for itself included), with CodeInvalidArgument
// naming the steps; name is the plan's.
func CheckGraph(name, body string) error {
	if !strings.Contains(body, "(after ") {
		return nil
	}
	steps := StepsOf(body)
	for _, s := range steps {
		for _, n := range s.After {
			if n < 1 || n > len(steps) {
				return Fail(Error{Code: CodeInvalidArgument, Reason: reasonAfterUnknown, Name: name, Field: FieldContent,
					Step: s.Number, Steps: len(steps), Value: strconv.Itoa(n), Waits: []int{n}})
			}
		}
	}
	if cycle := FindCycle(steps); cycle != nil {
		return Fail(Error{Code: CodeInvalidArgument, Reason: reasonAfterCycle, Name: name, Field: FieldContent,
			Step: cycle[0], Waits: cycle})
	}
	return nil
}

// FindCycle returns the steps of one cycle of prerequisites in the order they wait for each
// other, starting at its smallest number; nil when there is none. Iterative, so a long
// chain cannot exhaust the stack.
func FindCycle(steps []Step) []int {
	const (
		unseen = iota
		open
		closed
	)
	mark := make([]uint8, len(steps)+1)
	type frame struct{ step, next int }
	for start := 1; start <= len(steps); start++ {
		if mark[start] != unseen {
			continue
		}
		stack := []frame{{start, 0}}
		mark[start] = open
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			after := steps[top.step-1].After
			if top.next >= len(after) {
				mark[top.step] = closed
				stack = stack[:len(stack)-1]
				continue
			}
			n := after[top.next]
			top.next++
			if n < 1 || n > len(steps) {
				continue
			}
			switch mark[n] {
			case open:
				var cycle []int
				for i := len(stack) - 1; i >= 0; i-- {
					cycle = append(cycle, stack[i].step)
					if stack[i].step == n {
						break
					}
				}
				slices.Reverse(cycle)
				low := slices.Index(cycle, slices.Min(cycle))
				return append(cycle[low:], cycle[:low]...)
			case unseen:
				mark[n] = open
				stack = append(stack, frame{n, 0})
			}
		}
	}
	return nil
}

// NextFreeStep returns the first ready step: pending, and every step it waits for completed
// or skipped. It is the one an agent looking for work takes (steps in progress
// belong to whoever moved them); ok is false when no pending step is ready.
func NextFreeStep(steps []Step) (step Step, ok bool) {
	for _, s := range steps {
		if s.State == StepPending && WaitsOf(steps, s) == nil {
			return s, true
		}
	}
	return Step{}, false
}

// NextAfter is the step to point an agent at after it was refused step number: the first
// ready pending step after it, else the first ready one (NextFreeStep); nil when none is.
// Agents refused together (they all went for the same step) so spread out instead of all
// trying the same step again.
func NextAfter(steps []Step, number int) *Step {
	for _, s := range steps {
		if s.Number > number && s.State == StepPending && WaitsOf(steps, s) == nil {
			return &s
		}
	}
	if s, ok := NextFreeStep(steps); ok {
		return &s
	}
	return nil
}
