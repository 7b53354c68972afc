package main

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

func runWith(t *testing.T, backend plan.Backend, p person) string {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, backend, p))
	text := out.String()
	assert.Equal(t, 1, strings.Count(text, `{"error"`), "no tool call failed but the worker's first write")
	assert.Contains(t, text, "🔒 write_file by worker refused: no_step", "a write before taking a step is refused")
	assert.Contains(t, text, `worker ← {"error":{"code":"not_approved"`)
	return text
}

func TestApprove(t *testing.T) {
	local, err := plan.NewLocalBackend(t.TempDir())
	require.NoError(t, err)
	p, err := personFor("approve", nil, nil)
	require.NoError(t, err)
	text := runWith(t, local, p)
	for _, want := range []string{
		"planner → request_plan_approval",
		"=== Approval requested: plan release, revision 2: \"Release 2.0\" ===",
		"✋ release-manager decides: approve",
		"release r3 approve",
		"worker → update_plan_step {\"name\":\"release\",\"step\":3,\"status\":\"completed\",\"last_known_revision\":8}",
		"🔓 write_file by worker runs under step 1 of plan release (revision 4)",
		"🔓 write_file by worker runs under step 3 of plan release (revision 8)",
		"The plan as stored (revision 9, approved at revision 2 by release-manager)",
		"- [x] Tag and publish",
		"/release/step-3.md: Done: Tag and publish (uses write_file)\n",
		"  step 2 may use: write_file\n",
	} {
		assert.Contains(t, text, want)
	}
	assert.Equal(t, 1, strings.Count(text, "=== Approval requested"))
}

func TestRejectThenApprove(t *testing.T) {
	p, err := personFor("reject", nil, nil)
	require.NoError(t, err)
	text := runWith(t, plan.NewMemoryBackend(), p)
	for _, want := range []string{
		"✋ release-manager decides: reject (Add a rollback step before publishing.)",
		"release r3 reject",
		"=== Approval requested: plan release, revision 5: \"Release 2.0\" ===",
		"The planner says: Added a rollback step.",
		"- [x] Prepare a rollback",
		"The plan as stored (revision 14, approved at revision 5 by release-manager)",
		"🔓 write_file by worker runs under step 3 of plan release (revision 11)",
		"/release/step-3.md: Done: Prepare a rollback (uses write_file)\n",
	} {
		assert.Contains(t, text, want)
	}
	// Nothing moved before the approval: the first step change follows it.
	assert.Less(t, strings.Index(text, "release r6 approve"), strings.Index(text, "release r7 step"))
	assert.NotContains(t, text, "release r6 step")
}

// TestTerminalEdit: the person types a name, chooses to edit, and types a new plan.
func TestTerminalEdit(t *testing.T) {
	in := "ana\nx\ne\n# Release 2.0\n- [ ] Tag and publish (uses write_file)\n.\n"
	var prompts bytes.Buffer
	text := runWith(t, plan.NewMemoryBackend(), terminal(bufio.NewReader(strings.NewReader(in)), &prompts))
	assert.Contains(t, prompts.String(), "[a]pprove, [r]eject, [e]dit: [a]pprove", "an unknown choice asks again")
	assert.Contains(t, text, "✋ ana decides: approve an edited plan")
	assert.Contains(t, text, "The plan as stored (revision 5, approved at revision 3 by ana):\n# Release 2.0\n- [x] Tag and publish")
	assert.Contains(t, text, "/release/step-1.md: Done: Tag and publish (uses write_file)\n", "the worker wrote under the one step of the edited plan")
}

func TestUnknownDecision(t *testing.T) {
	_, err := personFor("maybe", nil, nil)
	assert.Error(t, err)
}
