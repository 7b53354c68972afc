package tools

import (
	"strconv"

	"github.com/bytedance/sonic"
	"github.com/einoplan/plan/internal/document"
)

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

// stepResult is what update_plan_step answers to a move, in a few tokens: the revision, the
// step the call moved (with next, the step the caller holds now), its holder only when that
// is not the caller, and the steps done of all ("12/20", as the digest says it). Never a
// step's text, which the digest carries and the model chose, nor its state, which the call
// spelled (another spelling, "done" for completed, is reported under "normalized" like
// every forgiven argument), nor the step after it: a take without a step number finds that.
type stepResult struct {
	Revision int64  `json:"revision"`
	Step     int    `json:"step"`
	Holder   string `json:"holder,omitempty"`
	Done     string `json:"done"`
	// Next says that a move with next found no step ready to take: Step is then the step
	// finished, and the caller holds no new one.
	Next string `json:"next,omitempty"`
	// Review says, in the model's language, that the step now awaits someone else's review.
	Review string `json:"review,omitempty"`
	// Proof says, in the model's language, which passing call completes the step it holds.
	Proof string `json:"proof,omitempty"`
	// Budget is what is left of the budget of the step the run holds now (or its plan's),
	// in the model's language: "8.2k of 10k tokens left".
	Budget string `json:"budget,omitempty"`
}

// doneOf is the steps done (completed or skipped) of all, as "12/20".
func doneOf(steps []document.Step) string {
	pr := document.ComputeProgress(steps)
	return Itoa(pr.Completed+pr.Skipped) + "/" + Itoa(pr.Total)
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

// ResultAPI encodes everything a model reads. It validates strings and replaces invalid
// UTF-8 with U+FFFD, so a result is valid UTF-8 JSON whatever a stored file holds.
var ResultAPI = sonic.Config{ValidateString: true}.Froze()

func Itoa(n int) string { return strconv.Itoa(n) }

// jsonString is s as a JSON string.
func jsonString(s string) string {
	js, err := ResultAPI.MarshalToString(s)
	if err != nil {
		return `""`
	}
	return js
}

// What the model reads of people's comments: the open ones, each as the Store keeps it
// (JSON escapes its text), and what to do about them in its language.

// openComments lists p's open comments for a result, and the advice that goes with them;
// nil and "" when none is open.
func (env *ToolEnv) openComments(p *document.Plan) ([]document.Comment, string) {
	if p == nil {
		return nil, ""
	}
	open := document.OpenCommentsOf(p)
	if len(open) == 0 {
		return nil, ""
	}
	return open, env.Texts["comments.open"]
}
