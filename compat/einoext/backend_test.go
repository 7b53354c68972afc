package einoext_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// TestBackendStepUpdateOfLargePlan: with eino-ext's local backend as the plan Backend, a
// 2,500-step plan survives an update_plan_step whole: every step is still there and only
// the moved one changed, in the Store and on disk.
func TestBackendStepUpdateOfLargePlan(t *testing.T) {
	ctx := context.Background()
	const steps, moved = 2500, 2400
	body := stepsBody(steps)
	dir := filepath.Join(t.TempDir(), "plans")
	b := backend{newLocal(t)}

	results := runAgent(t, &plan.Config{Backend: b, BaseDir: dir},
		plantest.CallTool("write_plan", jsonArgs(t, map[string]any{"name": "migration", "content": body})),
		plantest.CallTool("update_plan_step", jsonArgs(t, map[string]any{"name": "migration", "step": moved, "status": "completed", "last_known_revision": 1})),
	)
	for _, r := range results {
		require.Equal(t, "", errorCode(t, r), r)
	}
	require.Contains(t, results[1], fmt.Sprintf(`"done":"1/%d"`, steps))

	want := strings.Replace(body, fmt.Sprintf("- [ ] move table %04d\n", moved), fmt.Sprintf("- [x] move table %04d\n", moved), 1)
	want = strings.TrimSuffix(want, "\n") // eino-ext drops a file's final newline on read
	store, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: dir})
	require.NoError(t, err)
	got, err := store.Get(ctx, "migration")
	require.NoError(t, err)
	require.EqualValues(t, 2, got.Revision)
	require.Equal(t, want, got.Content)
	sum := plan.Summarize(got)
	require.Equal(t, steps, sum.Progress.Total)
	require.Equal(t, 1, sum.Progress.Completed)

	raw, err := os.ReadFile(filepath.Join(dir, "migration.md"))
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(raw), "\n---\n"+want), "the file holds the header and the whole body")
}
