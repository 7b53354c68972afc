package plan

import (
	"strings"
	"testing"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var allStates = []StepState{StepPending, StepInProgress, StepCompleted, StepFailed, StepSkipped}

// Exactly the allowed moves between step states pass; every other is illegal_transition naming
// both states.
func TestCheckTransitionMatrix(t *testing.T) {
	legal := map[[2]StepState]bool{
		{StepPending, StepInProgress}:   true,
		{StepPending, StepCompleted}:    true,
		{StepPending, StepFailed}:       true,
		{StepPending, StepSkipped}:      true,
		{StepInProgress, StepCompleted}: true,
		{StepInProgress, StepFailed}:    true,
	}
	for _, from := range allStates {
		for _, to := range allStates {
			t.Run(string(from)+"->"+string(to), func(t *testing.T) {
				err := document.CheckTransition(from, to)
				if legal[[2]StepState{from, to}] {
					assert.NoError(t, err)
					return
				}
				require.Error(t, err)
				assert.Equal(t, CodeIllegalTransition, CodeOf(err))
				msg := modelMessage(err)
				assert.Contains(t, msg, string(from))
				assert.Contains(t, msg, string(to))
				if from == to {
					assert.Contains(t, msg, "already "+string(from))
				} else {
					assert.Contains(t, msg, "rewrite the plan")
				}
			})
		}
	}
}

const setBody = "# Plan\r\n\r\nIntro [x] text.\r\n\r\n- [ ] first\r\n  - [~] nested\r\n```\r\n- [ ] code\r\n```\r\n1. [X] done\r\n* [ ]\r\n- [ ] last"

// setStepState refuses a step number outside the plan, an unknown state and a bad note, saying
// what is wrong.
func TestSetStepStateErrors(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		number   int
		to       StepState
		note     string
		code     Code
		contains []string
	}{
		{"no steps", "# nothing\n- bullet\n", 1, StepCompleted, "", CodeInvalidArgument, []string{"step 1", "checklist steps in this plan: 0"}},
		{"zero", setBody, 0, StepCompleted, "", CodeInvalidArgument, []string{"step 0", "checklist steps in this plan: 5"}},
		{"negative", setBody, -2, StepCompleted, "", CodeInvalidArgument, []string{"checklist steps in this plan: 5"}},
		{"past the end", setBody, 6, StepCompleted, "", CodeInvalidArgument, []string{"step 6", "checklist steps in this plan: 5"}},
		{"one step", "- [ ] a\n", 2, StepCompleted, "", CodeInvalidArgument, []string{"checklist steps in this plan: 1"}},
		{"step in a fence is not counted", "```\n- [ ] a\n```\n", 1, StepCompleted, "", CodeInvalidArgument, []string{"checklist steps in this plan: 0"}},
		{"unknown state", setBody, 1, "done", "", CodeInvalidArgument, []string{"valid states"}},
		{"note with newline", setBody, 1, StepCompleted, "a\nb", CodeInvalidArgument, []string{"single line"}},
		{"note with CR", setBody, 1, StepCompleted, "a\rb", CodeInvalidArgument, []string{"single line"}},
		{"note too long", setBody, 1, StepCompleted, strings.Repeat("n", 501), CodeInvalidArgument, []string{"501 bytes", "500"}},
		{"already completed", setBody, 3, StepCompleted, "", CodeIllegalTransition, []string{"step 3", "already completed"}},
		{"completed is final", setBody, 3, StepFailed, "", CodeIllegalTransition, []string{"step 3", "completed", "failed", "rewrite the plan"}},
		{"in progress cannot skip", setBody, 2, StepSkipped, "", CodeIllegalTransition, []string{"step 2", "in_progress", "skipped"}},
		{"in progress again", setBody, 2, StepInProgress, "", CodeIllegalTransition, []string{"already in_progress"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, updated, err := document.SetStepState(tt.body, tt.number, tt.to, tt.note)
			require.Error(t, err)
			assert.Equal(t, tt.code, CodeOf(err))
			for _, s := range tt.contains {
				assert.Contains(t, modelMessage(err), s)
			}
			assert.Empty(t, got)
			assert.Equal(t, Step{}, updated)
		})
	}
}

// modelMessage is what a model reads for err, in English.
func modelMessage(err error) string {
	return (&tools.ToolEnv{Texts: textsEN}).ErrorMessage(err.(*Error))
}
