package board

import (
	"context"
	"time"

	"github.com/einoplan/plan/api"

	"github.com/einoplan/plan"
)

// planHeader is what the board shows of every plan, in its list and on its own: the
// header, the approval, and the run paused until a person decides (Waiting).
type planHeader struct {
	Name      string        `json:"name"`
	Title     string        `json:"title"`
	Status    string        `json:"status"`
	Author    string        `json:"author,omitempty"`
	Revision  int64         `json:"revision"`
	UpdatedAt time.Time     `json:"updated_at"`
	Approval  *api.Approval `json:"approval,omitempty"`
	Waiting   *api.Waiting  `json:"waiting,omitempty"`
	// OverBudget: the plan went over its own budget (api.Plan.OverBudget); in the list,
	// which carries no steps, the plan or one of its steps (api.Summary.OverBudget).
	OverBudget bool `json:"over_budget,omitempty"`
}

// planView is one plan as the board shows it: the header, the progress, every step, and
// who made the current revision.
type planView struct {
	planHeader
	// Rejection is the last rejection.
	Rejection *api.Rejection `json:"rejection,omitempty"`
	Progress  api.Progress   `json:"progress"`
	Steps     []stepView     `json:"steps"`
	// ChangedBy is who made the current revision, as the history records it; "" when
	// unknown. ChangeAction is what kind of change made it.
	ChangedBy    string      `json:"changed_by,omitempty"`
	ChangeAction plan.Action `json:"change_action,omitempty"`
	Repaired     bool        `json:"repaired,omitempty"`
	// Cost is what its steps cost together, as their lines say; Budget what the plan may.
	Cost   *plan.StepCost `json:"cost,omitempty"`
	Budget string         `json:"budget,omitempty"`
	// Comments are people's comments on the steps, open and closed (api.Comment).
	Comments []api.Comment `json:"comments,omitempty"`
}

// planDetail is planView with the body and the kept revisions, newest first.
type planDetail struct {
	planView
	Content string          `json:"content"`
	History []plan.Revision `json:"history"`
}

// viewOf builds the view of p; history is the plan's kept revisions, newest first, or nil.
func viewOf(p *plan.Plan, history []plan.Revision) planView {
	v := planView{planHeader: planHeader{Name: p.Name, Title: p.Title, Status: p.Status, Author: p.Author, Revision: p.Revision,
		UpdatedAt: p.UpdatedAt, Approval: p.Approval, Waiting: p.Waiting, OverBudget: p.OverBudget}, Rejection: p.Rejection, Progress: plan.Summarize(p).Progress,
		Repaired: p.Repaired, Comments: p.Comments}
	steps := plan.ParseSteps(p.Content)
	v.Steps, v.Cost, v.Budget = viewsOf(steps), api.TotalCost(steps), p.Budget
	if len(history) > 0 && history[0].Revision == p.Revision {
		v.ChangedBy, v.ChangeAction = history[0].Author, history[0].Action
	}
	return v
}

// detailOf reads plan name and its history. A history that cannot be read leaves History
// empty rather than failing the plan.
func (b *board) detailOf(ctx context.Context, name string) (*planDetail, error) {
	p, err := b.store.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	history, err := b.store.History(ctx, name)
	if err != nil {
		history = nil
	}
	return b.detail(p, history), nil
}

func (b *board) detail(p *plan.Plan, history []plan.Revision) *planDetail {
	if history == nil {
		history = []plan.Revision{}
	}
	v := viewOf(p, history)
	for i, s := range v.Steps {
		if s.State != plan.StepInProgress || s.Holder == "" {
			continue
		}
		if end := b.store.HeldUntil(p, s.Number); !end.IsZero() {
			v.Steps[i].HeldUntil = &end
		}
	}
	return &planDetail{planView: v, Content: p.Content, History: history}
}
