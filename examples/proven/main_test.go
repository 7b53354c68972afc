package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The example's agent makes no plan call between the two fix steps: each passing test run
// completes its step and the host tells the model which step is its own now, in order; the
// failing run moves nothing, and the stored plan keeps the runs the host saw.
func TestProvenOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	text := out.String()
	first := `✎ Plan parsers: step 1 completed; yours now: step 2 "Fix the number parser (uses edit_file) (proof run_tests)"; done 1/3.`
	second := `✎ Plan parsers: step 2 completed; yours now: step 3 "Tell the team"; done 2/3.`
	require.Contains(t, text, first)
	require.Contains(t, text, second)
	require.Less(t, strings.Index(text, "← FAIL"), strings.Index(text, first), "the failing run moved nothing")
	require.Less(t, strings.Index(text, first), strings.Index(text, second))
	require.Equal(t, 2, strings.Count(text, "→ update_plan_step"), "the first take and the last completion only")
	require.Equal(t, 2, strings.Count(text, "— observed: run_tests passed"))
	require.Contains(t, text, "The plan as stored (revision 5)")
	require.Contains(t, text, "- [x] Tell the team (@coder) — posted in #parsers")
}
