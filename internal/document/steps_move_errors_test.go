package document

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setStepState refuses a step number outside the plan, an unknown state and a bad note, saying
// what is wrong.
func TestSetStepStateErrors(t *testing.T) {
	tests := []struct {
		name, body string
		number     int
		to         StepState
		note       string
		code       Code
		contains   []string
	}{
		{"no steps", "# nothing\n- bullet\n", 1, StepCompleted, "", CodeInvalidArgument, []string{"step 1", "has 0 checklist steps"}},
		{"zero", setBody, 0, StepCompleted, "", CodeInvalidArgument, []string{"step 0", "has 5 checklist steps"}},
		{"negative", setBody, -2, StepCompleted, "", CodeInvalidArgument, []string{"has 5 checklist steps"}},
		{"past the end", setBody, 6, StepCompleted, "", CodeInvalidArgument, []string{"step 6", "has 5 checklist steps"}},
		{"one step", "- [ ] a\n", 2, StepCompleted, "", CodeInvalidArgument, []string{"has 1 checklist steps"}},
		{"step in a fence is not counted", "```\n- [ ] a\n```\n", 1, StepCompleted, "", CodeInvalidArgument, []string{"has 0 checklist steps"}},
		{"unknown state", setBody, 1, "done", "", CodeInvalidArgument, []string{`"done" is not a step state`}},
		{"note with newline", setBody, 1, StepCompleted, "a\nb", CodeInvalidArgument, []string{"line breaks"}},
		{"note with CR", setBody, 1, StepCompleted, "a\rb", CodeInvalidArgument, []string{"line breaks"}},
		{"note too long", setBody, 1, StepCompleted, strings.Repeat("n", 501), CodeInvalidArgument, []string{"501 bytes", "500"}},
		{"already completed", setBody, 3, StepCompleted, "", CodeIllegalTransition, []string{"step 3", "already completed"}},
		{"completed is final", setBody, 3, StepFailed, "", CodeIllegalTransition, []string{"step 3", "completed", "failed", "final state"}},
		{"in progress cannot skip", setBody, 2, StepSkipped, "", CodeIllegalTransition, []string{"step 2", "in_progress", "skipped"}},
		{"in progress again", setBody, 2, StepInProgress, "", CodeIllegalTransition, []string{"already in_progress"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, updated, err := setStepState(tt.body, tt.number, tt.to, tt.note)
			require.Error(t, err)
			assert.Equal(t, tt.code, CodeOf(err))
			for _, s := range tt.contains {
				assert.Contains(t, err.Error(), s)
			}
			assert.Empty(t, got)
			assert.Equal(t, Step{}, updated)
		})
	}
}
