package main

import (
	"bytes"
	"context"
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
		`← {"error":{"code":"revision_conflict"`,
		"The write was rejected",
		`"current_revision":3`,
		"● change: release step → revision 4, 1/3 steps done",
		"The plan as stored (revision 4, status \"in-progress\", author \"release-bot\")",
		"- [x] Write the changelog — see CHANGES.md",
	} {
		require.Contains(t, text, want)
	}
}
