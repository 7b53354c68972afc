package document

import "time"

// What a plan's summary says of its steps: how far they are, and which one is current.

// Summary is a plan without its body: what list_plans, the digest and change events carry.
type Summary struct {
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Status      string    `json:"status"`
	Author      string    `json:"author,omitempty"`
	Revision    int64     `json:"revision"`
	UpdatedAt   time.Time `json:"updated_at"`
	Progress    Progress  `json:"progress"`
	CurrentStep *Step     `json:"current_step,omitempty"`
	// NextStep is the first ready step (pending, every step it waits for completed or
	// skipped), when it is not CurrentStep: the step an agent looking for work takes while
	// others hold steps in progress. CurrentStep is the first step in progress, else that
	// same ready step; neither is set for a step that is not ready.
	NextStep *Step     `json:"next_step,omitempty"`
	Approval *Approval `json:"approval,omitempty"`
	Repaired bool      `json:"repaired,omitempty"`
	// Waiting is the run paused until a person decides on the plan; nil when none is.
	Waiting *Waiting `json:"waiting,omitempty"`
}

// Progress counts steps by state. Total is the sum of the other counts for steps in known
// states; Percent is floor(100*(Completed+Skipped)/Total), and 0 when Total is 0. In JSON,
// zero counts are omitted to keep tool results short; total and percent are always there.
type Progress struct {
	Total      int `json:"total"`
	Pending    int `json:"pending,omitempty"`
	InProgress int `json:"in_progress,omitempty"`
	Completed  int `json:"completed,omitempty"`
	Failed     int `json:"failed,omitempty"`
	Skipped    int `json:"skipped,omitempty"`
	Percent    int `json:"percent"`
}

// Summarize derives the Summary of p, parsing its checklist once. Its Approval is p's: set
// only on a plan a Store read and whose seal it checked, never on one from DecodePlan.
func (p *Plan) Summarize() Summary {
	steps := StepsOf(p.Content)
	sum := Summary{
		Name: p.Name, Title: p.Title, Status: p.Status, Author: p.Author,
		Revision: p.Revision, UpdatedAt: p.UpdatedAt, Progress: ComputeProgress(steps), Repaired: p.Repaired,
		Approval: p.Approval, Waiting: p.Waiting,
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
