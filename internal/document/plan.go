package document

import (
	"reflect"
	"slices"

	"github.com/einoplan/plan/api"
)

// The plan and its record, declared in package api.
type (
	Plan      = api.Plan
	Approval  = api.Approval
	Waiting   = api.Waiting
	Rejection = api.Rejection
	Action    = api.Action
)

// The mutations a Change can report.
const (
	ActionWrite   = api.ActionWrite
	ActionStatus  = api.ActionStatus
	ActionStep    = api.ActionStep
	ActionDelete  = api.ActionDelete
	ActionApprove = api.ActionApprove
	ActionRevoke  = api.ActionRevoke
	ActionReject  = api.ActionReject
	ActionAwait   = api.ActionAwait
	ActionResync  = api.ActionResync
)

// MaxHeaderField bounds one header field's value.
const MaxHeaderField = 1024

// CopyPlan returns a Plan that shares nothing mutable with p.
func CopyPlan(p *Plan) *Plan {
	c := *p
	if p.Approval != nil {
		a := *p.Approval
		c.Approval = &a
	}
	c.Comments = slices.Clone(p.Comments) // each comment's times are never changed in place
	return &c
}

// SamePlan reports whether a and b are the same revision with the same fields throughout.
func SamePlan(a, b *Plan) bool {
	return a.Revision == b.Revision && a.Content == b.Content && reflect.DeepEqual(*a, *b)
}
