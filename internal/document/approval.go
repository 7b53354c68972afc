package document

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Header keys of an approval. Readers that predate them ignore unknown keys, and a plan
// without them (or with any of them missing or malformed) reads as not approved.
const (
	hdrApprovedRevision = "approved_revision"
	hdrApprovedBy       = "approved_by"
	hdrApprovedAt       = "approved_at"
	hdrApprovedHash     = "approved_hash"
)

// ApprovedBody is body with every step marker read as pending: what an approval vouches for
// is the plan's text, not the progress of its steps.
func ApprovedBody(body string) string {
	b := []byte(body)
	scanSteps(body, func(s ScannedStep) bool {
		b[s.Marker] = ' '
		return true
	})
	return string(b)
}

// writeApproval appends the approval header lines of p, if it is approved.
func writeApproval(b *strings.Builder, p *Plan) {
	a := p.Approval
	if a == nil || p.Seal == "" {
		return // an approval without the Store's seal would read as not approved anyway
	}
	b.WriteString(hdrApprovedRevision + ": ")
	b.WriteString(strconv.FormatInt(a.Revision, 10))
	b.WriteByte('\n')
	WriteHeaderString(b, hdrApprovedBy, a.By)
	WriteHeaderString(b, hdrApprovedAt, a.At.UTC().Format(time.RFC3339Nano))
	WriteHeaderString(b, hdrApprovedHash, p.Seal)
}

// approvalHeader collects the approval lines of a header while it is decoded.
type approvalHeader struct {
	revision, by, at, hash string
	seen                   int
}

// take keeps value when key is an approval key, and reports whether it was one.
func (h *approvalHeader) take(key, value string) bool {
	var field *string
	switch key {
	case hdrApprovedRevision:
		field = &h.revision
	case hdrApprovedBy:
		field = &h.by
	case hdrApprovedAt:
		field = &h.at
	case hdrApprovedHash:
		field = &h.hash
	default:
		return false
	}
	*field = value
	h.seen++
	return true
}

// approval returns the approval the lines describe, and its seal, when every line is well
// formed and the approved revision is not after the plan's; nil otherwise. Whether the seal
// is the Store's is for the Store to check (checkApprovalSeal). A bad approval never makes a
// plan unreadable: it only makes it not approved.
func (h *approvalHeader) approval(planRevision int64) (*Approval, string) {
	if h.seen == 0 {
		return nil, ""
	}
	rev, err := strconv.ParseInt(h.revision, 10, 64)
	if err != nil || rev < 1 || rev > planRevision {
		return nil, ""
	}
	var by, at, seal string
	if DecodeJSONString(h.by, &by) != nil || DecodeJSONString(h.at, &at) != nil || DecodeJSONString(h.hash, &seal) != nil {
		return nil, ""
	}
	when, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return nil, ""
	}
	if when = when.UTC(); when.Year() < 0 || when.Year() > 9999 || seal == "" {
		return nil, ""
	}
	return &Approval{Revision: rev, By: by, At: when}, seal
}

// settleApproval decides what approval next carries after a change of kind action to cur.
// Approve, revoke and reject set it themselves. A step move keeps the approval of cur: the Store
// made that change, marker, note and holder, itself. Any other change keeps it only when it
// leaves the body as it was (a status, a title). A new plan is never approved.
func settleApproval(action Action, cur, next *Plan) {
	if action == ActionApprove || action == ActionRevoke || action == ActionReject {
		return
	}
	if cur == nil || cur.Approval == nil {
		next.Approval = nil
		return
	}
	keep := *cur.Approval
	next.Approval = &keep
	if action != ActionStep && next.Content != cur.Content {
		next.Approval = nil
	}
}

// stepGateKey marks a context whose step moves, and writes that move steps, need an
// approved plan (Config.RequireApproval).
type stepGateKey struct{}

func WithStepGate(ctx context.Context) context.Context {
	return context.WithValue(ctx, stepGateKey{}, true)
}

// Gated reports whether changes to cur need its approval: the context asks for it
// (Config.RequireApproval), or the plan does, having been written under that requirement.
func Gated(ctx context.Context, cur *Plan) bool {
	g, _ := ctx.Value(stepGateKey{}).(bool)
	return g || cur != nil && cur.RequiresApproval
}

// ChangeWithApproval runs change on cur under the approval rules: the requirement passed on
// to the result, a rewrite that moves steps on a plan under it refused, and the approval
// settled on the result. It is mutateOnce's one approval hook. A step move checks the
// requirement among its own checks, on the plan as read under its lock.
func ChangeWithApproval(ctx context.Context, action Action, name string, cur *Plan, change func(cur *Plan) (*Plan, error)) (*Plan, error) {
	next, err := change(cur)
	if err != nil {
		return nil, err
	}
	if Gated(ctx, cur) {
		next.RequiresApproval = true // the requirement belongs to the plan from now on
	}
	if next.RequiresApproval && action == ActionWrite && !raisesBudget(ctx) && !keepsApproval(cur, next) && movesSteps(cur, next) {
		revision := int64(0)
		if cur != nil {
			revision = cur.Revision
		}
		return nil, Fail(Error{Code: CodeNotApproved, Reason: ReasonNotApproved, Name: name, CurrentRevision: revision})
	}
	settleApproval(action, cur, next)
	if raisesBudget(ctx) && cur != nil && cur.Approval != nil {
		keep := *cur.Approval // a person's raise of a step's budget (budgets_set.go)
		next.Approval = &keep
	}
	return next, nil
}

// keepsApproval reports whether a write of next keeps the approval cur has.
func keepsApproval(cur, next *Plan) bool {
	return cur != nil && cur.Approval != nil && next.Content == cur.Content
}

// movesSteps reports whether a write of next over cur (nil: a create) moves steps on: some
// step of next that is not pending has no step of cur in the same state with the same text
// (notes and holder tags aside). So a plan that is not approved, or a write that drops the
// approval, cannot start, finish, skip or fail a step by a rewrite, nor reword a finished
// one, while a rewrite that reorders finished steps, edits their notes, adds pending steps or
// leaves them as they were goes through.
func movesSteps(cur, next *Plan) bool {
	had := map[string]int{}
	if cur != nil {
		for _, s := range StepsOf(cur.Content) {
			if s.State != StepPending {
				had[gateKey(s)]++
			}
		}
	}
	for _, s := range StepsOf(next.Content) {
		if s.State == StepPending {
			continue
		}
		key := gateKey(s)
		if had[key] == 0 {
			return true
		}
		had[key]--
	}
	return false
}

// gateKey is what movesSteps compares of a step: its state and its text before any note, a
// budget it names aside (raising one moves nothing).
func gateKey(s Step) string {
	text, _ := SplitHolder(s.Text) // a finished step may keep the tag of who held it
	text, _, _ = strings.Cut(text, StepNoteSep)
	return string(s.State) + "\n" + strings.TrimSpace(withoutBudget(text))
}
