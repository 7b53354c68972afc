package einoext_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
	"github.com/stretchr/testify/require"
)

// TestWorkspaceRoundTripOfLargePlan: a 2,500-step plan exported to eino-ext's local file
// system and updated from the unedited file keeps all of its steps. eino-ext reads only the
// first 2,000 lines unless asked for more, so a tool that read with Limit 0 would report
// success and store a shorter plan; the only change allowed is the file's final newline,
// which eino-ext drops on every read.
func TestWorkspaceRoundTripOfLargePlan(t *testing.T) {
	ctx := context.Background()
	const steps = 2500
	body := stepsBody(steps)
	store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "migration.md")

	results := runAgent(t, &plan.Config{Store: store, Workspace: newLocal(t)},
		plantest.CallTool("write_plan", jsonArgs(t, map[string]any{"name": "migration", "content": body})),
		plantest.CallTool("export_plan_to_file", jsonArgs(t, map[string]any{"name": "migration", "path": file})),
		plantest.CallTool("update_plan_from_file", jsonArgs(t, map[string]any{"name": "migration", "file_path": file, "last_known_revision": 1})),
	)
	require.Equal(t, "", errorCode(t, results[0]), results[0])
	require.Equal(t, "", errorCode(t, results[1]), results[1])
	exported, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, body, string(exported), "the export writes the body whole")

	got, err := store.Get(ctx, "migration")
	require.NoError(t, err)
	require.Equal(t, steps, plan.Summarize(got).Progress.Total)
	if code := errorCode(t, results[2]); code != "" {
		require.EqualValues(t, 1, got.Revision, "a failed update changes nothing")
		require.Equal(t, body, got.Content)
		t.Fatalf("update_plan_from_file failed: %s", results[2])
	}
	require.EqualValues(t, 2, got.Revision)
	require.Equal(t, strings.TrimSuffix(body, "\n"), got.Content)
}

// The plans folder belongs to the Store whatever the Workspace is: with a LocalBackend as the
// Backend and eino-ext's local backend (which takes host paths) as the Workspace, the file
// tools refuse the plan files' host paths, so a plan is never overwritten from the side and
// its revisions never start again.
func TestFileToolsKeepOutOfThePlansFolderOnDisk(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	backend, err := plan.NewLocalBackend(root)
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	planFile := filepath.Join(root, "plans", "release.md")
	outside := filepath.Join(t.TempDir(), "release.md")
	body := "# Release\n- [ ] Build\n"

	results := runAgent(t, &plan.Config{Store: store, Workspace: newLocal(t)},
		plantest.CallTool("write_plan", jsonArgs(t, map[string]any{"name": "release", "content": body})),
		plantest.CallTool("export_plan_to_file", jsonArgs(t, map[string]any{"name": "release", "path": planFile})),
		plantest.CallTool("export_plan_to_file", jsonArgs(t, map[string]any{"name": "release", "path": filepath.Join(root, "plans", "copy.md")})),
		plantest.CallTool("update_plan_from_file", jsonArgs(t, map[string]any{"name": "release", "file_path": planFile, "last_known_revision": 1})),
		plantest.CallTool("export_plan_to_file", jsonArgs(t, map[string]any{"name": "release", "path": outside})),
	)
	require.Equal(t, "", errorCode(t, results[0]), results[0])
	for _, i := range []int{1, 2, 3} {
		require.Equal(t, "invalid_argument", errorCode(t, results[i]), results[i])
	}
	require.Equal(t, "", errorCode(t, results[4]), results[4])

	got, err := store.Get(ctx, "release")
	require.NoError(t, err, "the plan file is the Store's and reads back whole")
	require.EqualValues(t, 1, got.Revision)
	require.Equal(t, body, got.Content)
	_, err = os.Stat(filepath.Join(root, "plans", "copy.md"))
	require.True(t, os.IsNotExist(err), "nothing was written into the plans folder")
}

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
