package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/cloudwego/eino/components/tool"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
)

// Bounds of request_plan_approval's arguments and of a decision.
const (
	maxApprovalMessage = 4 << 10
	defaultApprover    = "person"
)

// interrupted carries an Eino interrupt out of a tool run: the one Go error a plan tool
// returns, since Eino needs it to pause the run and write the checkpoint.
type interrupted struct{ err error }

func (i interrupted) Error() string { return i.err.Error() }
func (i interrupted) Unwrap() error { return i.err }

// asInterrupt returns the Eino interrupt err carries, if any.
func asInterrupt(err error) (error, bool) {
	var i interrupted
	if errors.As(err, &i) {
		return i.err, true
	}
	return nil, false
}

type approvalResult struct {
	Name     string             `json:"name"`
	Revision int64              `json:"revision"`
	Approved bool               `json:"approved"`
	Approval *document.Approval `json:"approval,omitempty"`
	By       string             `json:"by,omitempty"`
	Feedback string             `json:"feedback,omitempty"`
	Next     string             `json:"next"`
	// Comments are the plan's open comments after a rejection, with how to answer them.
	Comments       []document.Comment `json:"comments,omitempty"`
	CommentsAdvice string             `json:"comments_advice,omitempty"`
}

// runRequestPlanApproval interrupts the run with an ApprovalRequest and, when the run is
// resumed with this interrupt as the target, applies the person's decision to the revision
// they saw. Resumed for another interrupt, it interrupts again with the same request.
func runRequestPlanApproval(ctx context.Context, env *ToolEnv, a args) (any, error) {
	if env.Role != nil && env.Role(ctx) == RoleSubAgent {
		return nil, document.Fail(document.Error{Code: document.CodeToolNotAvailable, Reason: document.ReasonApprovalOrchestratorOnly})
	}
	f := a.fields()
	name, message := f.str(pName), f.str(pMessage)
	if f.err != nil {
		return nil, f.err
	}
	if len(message) > maxApprovalMessage {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonTooLong, Field: pMessage.Name, Size: int64(len(message)), Limit: maxApprovalMessage})
	}
	if !utf8.ValidString(message) {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNotUTF8, Field: pMessage.Name})
	}
	was, hasState, asked := tool.GetInterruptState[document.ApprovalRequest](ctx)
	if !was || !hasState {
		cur, req, err := env.Store.ApprovalRequest(ctx, name, message)
		if err != nil {
			return nil, err
		}
		if cur.Approval != nil {
			return approvalResult{Name: name, Revision: cur.Revision, Approved: true, Approval: cur.Approval, Next: env.Texts["approval.already"]}, nil
		}
		// The plan says a run waits on it, and the person decides on the revision that says so.
		waiting, err := env.Store.MarkWaiting(ctx, name, cur.Revision, env.Agent(ctx))
		if err != nil {
			return nil, err
		}
		req.Revision = waiting.Revision
		if out, asked, err := askHost(ctx, env, req); asked {
			return out, err
		}
		return nil, interrupted{tool.StatefulInterrupt(ctx, req, req)}
	}
	target, hasData, data := tool.GetResumeContext[any](ctx)
	if !target {
		return nil, interrupted{tool.StatefulInterrupt(ctx, asked, asked)}
	}
	d, ok := decisionOf(data)
	if !hasData || !ok {
		return nil, document.Fail(document.Error{Code: document.CodeNotApproved, Reason: document.ReasonNoDecision, Name: asked.Name, Revision: asked.Revision})
	}
	return decide(ctx, env, asked, d)
}

// decisionOf reads resume data as a decision: an ApprovalDecision, a non-nil pointer to one,
// a map[string]any, or JSON ([]byte, string, json.RawMessage) with the same fields (Approved,
// By, Feedback, Content; matched as encoding/json matches them, so "approved" works too).
// Anything else, or a map or JSON that does not decode or names none of the fields, is no
// decision.
func decisionOf(data any) (document.ApprovalDecision, bool) {
	var raw []byte
	switch d := data.(type) {
	case document.ApprovalDecision:
		return d, true
	case *document.ApprovalDecision:
		if d != nil {
			return *d, true
		}
		return document.ApprovalDecision{}, false
	case map[string]any:
		if d == nil {
			return document.ApprovalDecision{}, false
		}
		b, err := json.Marshal(d)
		if err != nil {
			return document.ApprovalDecision{}, false
		}
		raw = b
	case json.RawMessage:
		raw = d
	case []byte:
		raw = d
	case string:
		raw = []byte(d)
	default:
		return document.ApprovalDecision{}, false
	}
	var dec document.ApprovalDecision
	if len(raw) > engine.MaxApprovalFeedback+maxContentDecision || json.Unmarshal(raw, &dec) != nil {
		return document.ApprovalDecision{}, false
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return document.ApprovalDecision{}, false
	}
	for k := range fields {
		switch strings.ToLower(k) {
		case "approved", "by", "feedback", "content", "comments":
			return dec, true
		}
	}
	return document.ApprovalDecision{}, false
}

// maxContentDecision bounds the JSON of a decision beyond its feedback: an edited plan body.
const maxContentDecision = 64 << 20

// decide applies a person's decision on the revision they were shown.
func decide(ctx context.Context, env *ToolEnv, asked document.ApprovalRequest, d document.ApprovalDecision) (any, error) {
	by := strings.TrimSpace(d.By)
	if by == "" {
		by = defaultApprover
	}
	by = document.TruncateUTF8(by, document.MaxHeaderField)
	if !d.Approved {
		feedback := document.TruncateUTF8(d.Feedback, engine.MaxApprovalFeedback)
		out := approvalResult{Name: asked.Name, Revision: asked.Revision, By: by,
			Feedback: feedback, Next: env.Texts["approval.rejected"]}
		out.Comments, out.CommentsAdvice = env.openComments(keepRejection(ctx, env, asked, by, feedback, d.Comments))
		return out, nil
	}
	var p *document.Plan
	var err error
	if d.Content != nil {
		p, err = env.Store.ApproveContent(ctx, asked.Name, asked.Revision, *d.Content, by)
	} else {
		p, err = env.Store.Approve(ctx, asked.Name, asked.Revision, by)
	}
	var pe *document.Error
	if errors.As(err, &pe) && pe.Code == document.CodeRevisionConflict {
		if done := alreadyDecided(ctx, env, asked, d, by); done != nil {
			p, err = done, nil // the same decision, applied by an earlier resume of this checkpoint
		} else {
			return nil, document.Fail(document.Error{Code: document.CodeRevisionConflict, Reason: document.ReasonApprovalStale, Name: asked.Name,
				Revision: asked.Revision, CurrentRevision: pe.CurrentRevision})
		}
	}
	if err != nil {
		return nil, err
	}
	return approvalResult{Name: p.Name, Revision: p.Revision, Approved: true, Approval: p.Approval,
		Feedback: document.TruncateUTF8(d.Feedback, engine.MaxApprovalFeedback), Next: env.Texts["approval.approved"]}, nil
}

// alreadyDecided returns the plan when it carries the approval d asks for: the revision
// shown or a later one (or, with an edited body, that body as the next one) approved by by. A
// resume that is replayed (a host retrying after a crash) then reports what happened.
func alreadyDecided(ctx context.Context, env *ToolEnv, asked document.ApprovalRequest, d document.ApprovalDecision, by string) *document.Plan {
	p, err := env.Store.Get(ctx, asked.Name)
	if err != nil || p.Approval == nil || p.Approval.By != by {
		return nil
	}
	if d.Content == nil && p.Approval.Revision >= asked.Revision {
		return p // approved by that person elsewhere (WaitDecision), maybe after editing it
	}
	if d.Content != nil && p.Approval.Revision == asked.Revision+1 {
		if edited, err := env.Store.GetRevision(ctx, asked.Name, asked.Revision+1); err == nil && edited.Content == *d.Content {
			return p
		}
	}
	return nil
}

// keepRejection records a rejection given as resume data, with its comments, in the
// history, unless it is there already (the person rejected with Store.Reject, or a resume is
// replayed). A plan that moved on since the revision shown keeps nothing: the model still
// gets the feedback. It returns the plan as it stands (nil when it cannot be read), whose
// open comments the model is shown.
func keepRejection(ctx context.Context, env *ToolEnv, asked document.ApprovalRequest, by, feedback string, comments []document.Comment) *document.Plan {
	p, err := env.Store.Get(ctx, asked.Name)
	if err != nil || p.Revision != asked.Revision {
		return p
	}
	if rejected, err := env.Store.Reject(ctx, asked.Name, asked.Revision, by, feedback, comments...); err == nil {
		return rejected
	}
	return p
}
