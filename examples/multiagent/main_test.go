package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/einoplan/plan/internal/document"

	"github.com/stretchr/testify/require"
)

func TestMultiAgentOutput(t *testing.T) {
	var out bytes.Buffer
	dir := t.TempDir()
	require.NoError(t, run(context.Background(), &out, dir))
	text := out.String()
	for _, want := range []string{
		"orchestrator → plan_template",
		"  [----------] 0/5 ship r1 write\n",
		"orchestrator → task {\"subagent_type\":\"worker\"",
		"worker → read_plan {\"name\":\"ship\"}",
		"worker → update_plan_step {\"name\":\"ship\",\"step\":2,\"status\":\"completed\",\"last_known_revision\":4}",
		"  [####------] 2/5 ship r5 step\n",
		"  [##########] 5/5 ship r11 step\n",
		"worker: Steps 4 and 5 of plan ship are completed.",
		"  [##########] 5/5 ship r12 status\n",
		"The worker is lean (Config.LeanWorker): its model saw the tools read_plan, update_plan_step.\n",
		"Final plan ship: \"Ship the 2.0 release\", status done, revision 12, author orchestrator",
		"- [x] Publish the release notes",
	} {
		require.Contains(t, text, want)
	}
	require.NotContains(t, text, "error", "no tool call failed")
	require.Equal(t, 12, strings.Count(text, " ship r"), "one progress line per change")

	raw, err := os.ReadFile(filepath.Join(dir, "plans", "ship.md"))
	require.NoError(t, err, "the plan is a Markdown file in the folder")
	p, err := document.DecodePlan("ship", string(raw))
	require.NoError(t, err)
	require.EqualValues(t, 12, p.Revision)
}
