package document

import (
	"testing"

	"github.com/einoplan/plan/api"
	"github.com/stretchr/testify/assert"
)

// api.Progress counts each state, and its percent counts completed and skipped steps as done,
// failed ones not.
func TestComputeProgress(t *testing.T) {
	mk := func(states ...StepState) []Step {
		s := make([]Step, len(states))
		for i, st := range states {
			s[i] = Step{Number: i + 1, State: st}
		}
		return s
	}
	tests := []struct {
		name  string
		steps []Step
		want  api.Progress
	}{
		{"none", nil, api.Progress{}},
		{"all pending", mk(StepPending, StepPending), api.Progress{Total: 2, Pending: 2}},
		{"one of three", mk(StepCompleted, StepPending, StepInProgress), api.Progress{Total: 3, Pending: 1, InProgress: 1, Completed: 1, Percent: 33}},
		{"skipped counts as done", mk(StepSkipped, StepCompleted, StepFailed), api.Progress{Total: 3, Completed: 1, Failed: 1, Skipped: 1, Percent: 66}},
		{"all done", mk(StepCompleted, StepSkipped), api.Progress{Total: 2, Completed: 1, Skipped: 1, Percent: 100}},
		{"failed is not done", mk(StepFailed), api.Progress{Total: 1, Failed: 1}},
		{"unknown ignored", mk("bogus", StepCompleted), api.Progress{Total: 1, Completed: 1, Percent: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ComputeProgress(tt.steps))
		})
	}
}

// The current step is the first in progress, else the first pending; a plan with every step
// finished has none.
func TestCurrentStep(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		want   int
		wantOK bool
	}{
		{"empty", "", 0, false},
		{"first pending", "- [x] a\n- [ ] b\n- [ ] c\n", 2, true},
		{"in progress wins over earlier pending", "- [ ] a\n- [~] b\n- [~] c\n", 2, true},
		{"all finished", "- [x] a\n- [!] b\n- [-] c\n", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := CurrentStep(ParseSteps(tt.body))
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got.Number)
		})
	}
}
