package tools

import "github.com/einoplan/plan/internal/document"

// The results of the tools. Field names are part of the tool contract.

type writeResult struct {
	Name     string            `json:"name"`
	Revision int64             `json:"revision"`
	Title    string            `json:"title"`
	Status   string            `json:"status"`
	Progress document.Progress `json:"progress"`
}

func newWriteResult(p *document.Plan) writeResult {
	return writeResult{Name: p.Name, Revision: p.Revision, Title: p.Title, Status: p.Status,
		Progress: document.ComputeProgress(document.StepsOf(p.Content))}
}

// readResult is read_plan's answer: the plan's summary and its body.
type readResult struct {
	document.Summary
	Approved *bool `json:"approved,omitempty"` // false when approval is required and missing
	// Cost is what the plan's steps cost together, as their lines say (each line has its own).
	Cost    *document.StepCost `json:"cost,omitempty"`
	Content string             `json:"content"`
	Note    string             `json:"note,omitempty"` // why since_revision gave the whole plan, when it was kept but not verified
	// Comments are people's open comments on the plan's steps; CommentsAdvice says how to
	// answer them.
	Comments       []document.Comment `json:"comments,omitempty"`
	CommentsAdvice string             `json:"comments_advice,omitempty"`
}

type statusResult struct {
	Name        string             `json:"name"`
	Status      string             `json:"status"`
	Revision    int64              `json:"revision"`
	Progress    *document.Progress `json:"progress,omitempty"`
	CurrentStep *document.Step     `json:"current_step,omitempty"`
	NextStep    *nextStep          `json:"next_step,omitempty"`
	Approval    *document.Approval `json:"approval,omitempty"`
	Approved    *bool              `json:"approved,omitempty"` // false when approval is required and missing
	// Cost is what the plan's steps cost together; StepCosts what each did, by step.
	Cost      *document.StepCost `json:"cost,omitempty"`
	StepCosts []stepCost         `json:"step_costs,omitempty"`
	// Budget is what is left of the budget of the step the run holds on this plan (or of
	// the plan's), as in update_plan_step's result.
	Budget string `json:"budget,omitempty"`
}

// stepCost is one step's cost in get_plan_status.
type stepCost struct {
	Step int `json:"step"`
	document.StepCost
}

// stepCostsOf lists the costs steps carry, by step.
func stepCostsOf(steps []document.Step) []stepCost {
	var out []stepCost
	for _, s := range steps {
		if s.Cost != nil {
			out = append(out, stepCost{Step: s.Number, StepCost: *s.Cost})
		}
	}
	return out
}

type deleteResult struct {
	Deleted  string `json:"deleted"`
	Revision int64  `json:"revision,omitempty"`
}

type exportResult struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Revision int64  `json:"revision"`
	Bytes    int    `json:"bytes"`
}

// stepResult is what update_plan_step answers: no body, not even the step's own text, which
// the model just chose, nor its state, which the call spelled (another spelling, "done" for
// completed, is reported under "normalized" like every forgiven argument). Progress has the
// shape it has in every other result.
type stepResult struct {
	Revision int64             `json:"revision"`
	Step     int               `json:"step"`
	Holder   string            `json:"holder,omitempty"`
	Progress document.Progress `json:"progress"`
	NextStep *nextStep         `json:"next_step,omitempty"`
	// Review says, in the model's language, that the step now awaits someone else's review.
	Review string `json:"review,omitempty"`
	// Proof says, in the model's language, which passing call completes the step it holds.
	Proof string `json:"proof,omitempty"`
	// Budget is what is left of the budget of the step the run holds now (or its plan's),
	// in the model's language: "8.2k of 10k tokens left".
	Budget string `json:"budget,omitempty"`
}

// nextResult is what update_plan_step answers to a move with next, in a few tokens: the
// revision, the step the caller holds now (its own: no holder named), and the steps done
// of all ("12/20", as the digest says it); no step text, which the digest carries.
type nextResult struct {
	Revision int64  `json:"revision"`
	Step     int    `json:"step"`
	Done     string `json:"done"`
	// Next says that no step was ready to take: Step is then the step finished, and the
	// caller holds no new one.
	Next   string `json:"next,omitempty"`
	Review string `json:"review,omitempty"`
	Proof  string `json:"proof,omitempty"`
	Budget string `json:"budget,omitempty"`
}

// nextStep is the step to take next: the first pending one.
type nextStep struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
}

func shortStep(s *document.Step) *nextStep {
	if s == nil {
		return nil
	}
	return &nextStep{Number: s.Number, Text: s.Text}
}

// changesResult is what read_plan answers given a since_revision that is still kept: what
// changed since, never the body. Changes is "" when nothing did.
type changesResult struct {
	Name          string            `json:"name"`
	Revision      int64             `json:"revision"`
	SinceRevision int64             `json:"since_revision"`
	Changes       string            `json:"changes"`
	Progress      document.Progress `json:"progress"`
	// Comments and CommentsAdvice are as in readResult: a comment changes no line of the body.
	Comments       []document.Comment `json:"comments,omitempty"`
	CommentsAdvice string             `json:"comments_advice,omitempty"`
}

func newChangesResult(cur, old *document.Plan) changesResult {
	return changesResult{Name: cur.Name, Revision: cur.Revision, SinceRevision: old.Revision,
		Changes: document.DiffPlans(old, cur, "", "", 0), Progress: document.ComputeProgress(document.StepsOf(cur.Content))}
}
