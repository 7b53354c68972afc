package tools

import (
	"context"
	"strings"

	"github.com/einoplan/plan/internal/document"
)

// ApprovalAsker is how a host that serves the tools outside an Eino run puts a plan to a
// person when request_plan_approval is called: it returns the person's decision, or nil
// when nobody decided now, and the plan then waits for a decision made elsewhere (the board,
// planctl approve). There is no Eino interrupt outside a run.
type ApprovalAsker func(ctx context.Context, req document.ApprovalRequest) (*document.ApprovalDecision, error)

type askerKey struct{}

// WithApprovalAsker makes request_plan_approval calls under ctx ask through ask instead of
// raising an Eino interrupt. Only the host sets it: no argument of a call can.
func WithApprovalAsker(ctx context.Context, ask ApprovalAsker) context.Context {
	return context.WithValue(ctx, askerKey{}, ask)
}

// hostAsks reports whether the host set an ApprovalAsker on ctx.
func hostAsks(ctx context.Context) bool {
	ask, _ := ctx.Value(askerKey{}).(ApprovalAsker)
	return ask != nil
}

// askHost asks the host's asker about req, which the plan now waits on. A decision is
// applied as a resumed run's is (decide); none, or an asker that failed, leaves the plan
// waiting and tells the model so.
func askHost(ctx context.Context, env *ToolEnv, req document.ApprovalRequest) (any, bool, error) {
	ask, _ := ctx.Value(askerKey{}).(ApprovalAsker)
	if ask == nil {
		return nil, false, nil
	}
	if d, err := ask(ctx, req); err == nil && d != nil {
		out, err := decide(ctx, env, req, *d)
		return out, true, err
	}
	return approvalResult{Name: req.Name, Revision: req.Revision, Next: env.Texts["approval.waiting"]}, true, nil
}

// IsErrorResult reports whether a plan tool's result is an error result, the JSON object
// ErrorResult writes: {"error": {...}}.
func IsErrorResult(result string) bool {
	return strings.HasPrefix(result, `{"error":`)
}
