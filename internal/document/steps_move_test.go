package document

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A move from or to an unknown state is invalid_argument.
func TestCheckTransitionUnknownState(t *testing.T) {
	assert.Equal(t, CodeInvalidArgument, CodeOf(CheckTransition("done", StepCompleted)))
	assert.Equal(t, CodeInvalidArgument, CodeOf(CheckTransition(StepPending, "done")))
}

const setBody = "# Plan\r\n\r\nIntro [x] text.\r\n\r\n- [ ] first\r\n  - [~] nested\r\n```\r\n- [ ] code\r\n```\r\n1. [X] done\r\n* [ ]\r\n- [ ] last"

// setStepState changes only the step's marker and note, keeping the rest of the body byte for
// byte.
func TestSetStepState(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		number   int
		to       StepState
		note     string
		wantBody string
		wantText string
	}{
		{"start first", setBody, 1, StepInProgress, "",
			strings.Replace(setBody, "- [ ] first", "- [~] first", 1), "first"},
		{"complete nested with note", setBody, 2, StepCompleted, "  all green  ",
			strings.Replace(setBody, "  - [~] nested\r\n", "  - [x] nested — all green\r\n", 1), "nested — all green"},
		{"fail nested", setBody, 2, StepFailed, "",
			strings.Replace(setBody, "  - [~] nested", "  - [!] nested", 1), "nested"},
		{"empty item with note", setBody, 4, StepSkipped, "not needed",
			strings.Replace(setBody, "* [ ]\r\n", "* [-] — not needed\r\n", 1), "— not needed"},
		{"last line without newline", setBody, 5, StepCompleted, "ok",
			strings.TrimSuffix(setBody, "- [ ] last") + "- [x] last — ok", "last — ok"},
		{"whitespace note is no note", setBody, 5, StepSkipped, " \t ",
			strings.TrimSuffix(setBody, "- [ ] last") + "- [-] last", "last"},
		{"item with trailing space", "- [ ] \n", 1, StepCompleted, "n", "- [x]  — n\n", " — n"},
		{"unicode note", "- [ ] a\n", 1, StepFailed, "échec ⚠", "- [!] a — échec ⚠\n", "a — échec ⚠"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, updated, err := setStepState(tt.body, tt.number, tt.to, tt.note)
			require.NoError(t, err)
			assert.Equal(t, tt.wantBody, got)
			assert.Equal(t, tt.to, updated.State)
			assert.Equal(t, tt.wantText, updated.Text)
			assert.Equal(t, tt.number, updated.Number)
			assert.Equal(t, ParseSteps(got)[tt.number-1], updated)
		})
	}
}

// A note of exactly the limit in bytes, once trimmed of the white space and newlines around
// it, is kept whole.
func TestSetStepStateNoteLimits(t *testing.T) {
	note := strings.Repeat("é", MaxStepNoteLen/2) // exactly maxStepNoteLen bytes
	got, _, err := setStepState("- [ ] a\n", 1, StepCompleted, "\n "+note+" \n")
	require.NoError(t, err)
	assert.Equal(t, "- [x] a — "+note+"\n", got)
}

// Every move between step states either applies, changing only the marker, or is refused with
// the code checkTransition gives.
func TestSetStepStateEveryTransition(t *testing.T) {
	for _, from := range allStates {
		for _, to := range allStates {
			body := "intro\n- [ ] keep\n- [" + string(MarkerOf(from)) + "] target\n"
			got, _, err := setStepState(body, 2, to, "")
			want := CheckTransition(from, to)
			if want != nil {
				assert.Equal(t, CodeOf(want), CodeOf(err), "%s -> %s", from, to)
				continue
			}
			require.NoError(t, err, "%s -> %s", from, to)
			assert.Equal(t, "intro\n- [ ] keep\n- ["+string(MarkerOf(to))+"] target\n", got)
		}
	}
}

func BenchmarkSetStepState(b *testing.B) {
	body := benchPlan()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, _, err := setStepState(body, 45, StepCompleted, "verified"); err != nil {
			b.Fatal(err)
		}
	}
}
