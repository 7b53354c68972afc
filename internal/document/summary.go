package document

import "github.com/einoplan/plan/api"

// What a plan's summary says of its steps: how far they are, and which one is current.

// What a summary carries, declared in package api.
type (
	Summary  = api.Summary
	Progress = api.Progress
)

// Summarize derives the Summary of p, parsing its checklist once. Its Approval is p's: set
// only on a plan a Store read and whose seal it checked, never on one from DecodePlan.
func Summarize(p *Plan) Summary {
	steps := StepsOf(p.Content)
	sum := Summary{
		Name: p.Name, Title: p.Title, Status: p.Status, Author: p.Author,
		Revision: p.Revision, UpdatedAt: p.UpdatedAt, Progress: ComputeProgress(steps), Repaired: p.Repaired,
		Approval: p.Approval, Waiting: p.Waiting, OverBudget: p.OverBudget,
	}
	for _, s := range steps {
		sum.OverBudget = sum.OverBudget || s.OverBudget
	}
	if cur, ok := CurrentStep(steps); ok {
		sum.CurrentStep = &cur
		if next, ok := NextFreeStep(steps); ok && next.Number != cur.Number {
			sum.NextStep = &next
		}
	}
	return sum
}

// ComputeProgress counts steps by state and computes Percent as (Completed+Skipped) over
// Total, rounded down. Steps in unknown states are not counted at all.
func ComputeProgress(steps []Step) Progress {
	var p Progress
	for _, s := range steps {
		switch s.State {
		case StepPending:
			p.Pending++
		case StepInProgress:
			p.InProgress++
		case StepCompleted:
			p.Completed++
		case StepFailed:
			p.Failed++
		case StepSkipped:
			p.Skipped++
		default:
			continue
		}
		p.Total++
	}
	if p.Total > 0 {
		p.Percent = 100 * (p.Completed + p.Skipped) / p.Total
	}
	return p
}

// CurrentStep returns the first in_progress step, else the first ready pending step (see
// nextFreeStep); ok is false when there is neither.
func CurrentStep(steps []Step) (step Step, ok bool) {
	for _, s := range steps {
		if s.State == StepInProgress {
			return s, true
		}
	}
	return NextFreeStep(steps)
}
