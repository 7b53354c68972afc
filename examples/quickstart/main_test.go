package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

func TestQuickstartOutput(t *testing.T) {
	local, err := plan.NewLocalBackend(t.TempDir())
	require.NoError(t, err)
	for name, backend := range map[string]plan.Backend{"memory": plan.NewMemoryBackend(), "local": local} {
		t.Run(name, func(t *testing.T) { checkOutput(t, backend) })
	}
}

func checkOutput(t *testing.T, backend plan.Backend) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, backend))
	text := out.String()
	for _, want := range []string{
		`→ write_plan`,
		`"revision":1`,
		"● change: release step → revision 4, 1/3 steps done",
		"only the title changed since, so it applied",
		`← {"error":{"code":"revision_conflict"`,
		`"current_revision":5`,
		"the move was refused and nothing\n  changed",
		`"changes":"@@`,
		"● change: release step → revision 6, 1/4 steps done",
		"The plan as stored (revision 6, status \"in-progress\", author \"release-bot\")",
		"- [x] Write the changelog — see CHANGES.md",
		"- [~] Run the preflight checks (@release-bot)",
	} {
		require.Contains(t, text, want)
	}
	// Each revision a teammate made is told before the first line that shows it.
	before := func(explained, shown string) {
		t.Helper()
		require.Contains(t, text, explained)
		require.Less(t, strings.Index(text, explained), strings.Index(text, shown), "%q comes before %q", explained, shown)
	}
	before("renames the plan through the Store: revision 3", "● change: release step → revision 4")
	before("adds a step before step 2 through the Store: revision 5", `"current_revision":5`)
}
