package api

import "time"

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
	// OverBudget: the plan (Plan.OverBudget) or one of its steps (Step.OverBudget) went
	// over its budget, as the steps' lines record.
	OverBudget bool `json:"over_budget,omitempty"`
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
