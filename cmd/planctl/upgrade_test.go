package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/einoplan/plan"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// release010 is the commit of release 0.1.0, whose planctl writes format 1.
const release010 = "d8eed29"

var (
	oldOnce sync.Once
	oldBin  string
	oldErr  error
	oldSkip string
)

// planctl010 returns planctl of release 0.1.0, built once per test binary from the
// repository's history; the test is skipped only when that history is absent.
func planctl010(t *testing.T) string {
	t.Helper()
	oldOnce.Do(func() {
		top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
		if err != nil {
			oldSkip = "not in a git checkout: release 0.1.0 cannot be built"
			return
		}
		root := strings.TrimSpace(string(top))
		if exec.Command("git", "-C", root, "cat-file", "-e", release010+"^{commit}").Run() != nil {
			oldSkip = "the git history lacks commit " + release010 + " (release 0.1.0); fetch it to run this test"
			return
		}
		src := filepath.Join(tmpRoot, "release-0.1.0")
		if err := os.MkdirAll(src, 0o755); err != nil {
			oldErr = err
			return
		}
		archive := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, release010, src)
		if out, err := archive.CombinedOutput(); err != nil {
			oldErr = fmt.Errorf("git archive: %v\n%s", err, out)
			return
		}
		oldBin = filepath.Join(tmpRoot, "bin", "planctl-0.1.0")
		build := exec.Command("go", "build", "-o", oldBin, ".")
		build.Dir = filepath.Join(src, "cmd", "planctl")
		build.Env = append(os.Environ(), "GOWORK="+filepath.Join(build.Dir, "go.work"), "GOFLAGS=")
		if out, err := build.CombinedOutput(); err != nil {
			oldErr = fmt.Errorf("go build of release 0.1.0: %v\n%s", err, out)
		}
	})
	if oldSkip != "" {
		t.Skip(oldSkip)
	}
	if oldErr != nil {
		t.Fatal(oldErr)
	}
	return oldBin
}

// run010 runs planctl 0.1.0 on dir.
func run010(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(planctl010(t), append([]string{"-dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), "USER=ana")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "planctl 0.1.0 %v: %s", args, out)
}

func TestPlansOfRelease010AreReadCheckedAndMigrated(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "plans")
	body := func(text string) string {
		file := filepath.Join(t.TempDir(), "body.md")
		require.NoError(t, os.WriteFile(file, []byte(text), 0o600))
		return file
	}
	const v1 = "# Release\n- [ ] Build\n- [ ] Test\n- [ ] Ship\n"
	const v3 = "# Release\n- [ ] Build\n- [ ] Test more\n- [ ] Ship\n"
	const noTools = "appr r2: approved, but no step names a tool it may use in (uses …), as plans written before (uses …) existed do not: " +
		"under Config.GatedTools every gated call of it is refused; add (uses TOOL) to the steps that need one " +
		"(`planctl export appr -`, `planctl import appr FILE`) and approve it again\n"

	// Release 0.1.0 writes: a plan with history, an approved plan, a plan mid-step.
	run010(t, dir, "import", "hist", body(v1))
	run010(t, dir, "status", "hist", "active", "-rev", "1")
	run010(t, dir, "import", "hist", body(v3), "-rev", "2")
	run010(t, dir, "status", "hist", "busy", "-rev", "3")
	run010(t, dir, "import", "appr", body(v1))
	run010(t, dir, "approve", "appr", "-rev", "1", "-by", "ana")
	run010(t, dir, "import", "mid", body(v1))
	run010(t, dir, "take", "mid", "1", "-to", "worker-1")

	// A host with the default BaseDir, as planctl now opens the folder, finds the key where
	// 0.1.0 kept it: Check says so and moves nothing.
	local, err := plan.NewLocalBackend(root)
	require.NoError(t, err)
	defer local.Close()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: local})
	require.NoError(t, err)
	hostReport, err := store.Check(ctx)
	require.NoError(t, err)
	assert.Equal(t, "/plans/.approval-key", hostReport.LegacyKey)
	assert.FileExists(t, filepath.Join(dir, ".approval-key"))
	assert.NoFileExists(t, filepath.Join(root, ".plans.approval-key"), "check moved the key")

	// Read as they are.
	listing, err := store.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, listing.Plans, 3)
	appr, err := store.Get(ctx, "appr")
	require.NoError(t, err)
	assert.Nil(t, appr.Approval, "a key inside the plans folder counts only once a person migrates")
	hist, err := store.History(ctx, "hist")
	require.NoError(t, err)
	require.Len(t, hist, 1)
	assert.True(t, hist[0].OlderUnverified)
	_, err = store.GetRevision(ctx, "hist", 2)
	var pe *plan.Error
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, "revision_unverifiable", pe.Reason)

	// check lists what to do, exits 5, and writes nothing.
	before := snapshot(t, dir)
	r := planctl(t, "-dir", dir, "check")
	assert.Equal(t, exitPending, r.code, r.stderr)
	assert.Equal(t, "appr r2: format 1; kept revision 1 in the format of 0.1.0, not served until `planctl migrate` converts them\n"+
		noTools+
		"hist r4: format 1; kept revisions 3, 2, 1 in the format of 0.1.0, not served until `planctl migrate` converts them\n"+
		"mid r2: format 1; kept revision 1 in the format of 0.1.0, not served until `planctl migrate` converts them\n"+
		"an approval key is at /plans/.approval-key, inside the plans folder, where 0.1.0 kept it, but whoever can write plan files may have planted it: "+
		"the approvals it sealed read as not approved until `planctl migrate -adopt-key` moves it beside the folder, if you trust it\n", r.stdout)
	assert.Equal(t, "planctl: "+dir+": 5 to do (listed above)\n", r.stderr)
	assert.Equal(t, before, snapshot(t, dir), "check changed the folder")

	// An agent writes with this release before the migration: its entry of revision 4 is
	// named by SHA-256, the ones below by CRC-32C; migrate converts through it.
	_, err = store.SetStatus(plan.WithActor(ctx, "agent-7"), "hist", "checked", nil)
	require.NoError(t, err)

	r = planctlOK(t, "-dir", dir, "migrate", "-adopt-key")
	assert.Equal(t, "adopted the approval key at /plans/.approval-key (moved beside the folder); approvals it makes valid: 1\n"+
		"  appr r1 approved by ana\n"+
		"appr r2: kept revision 1 converted, served again\n"+
		"hist r5: kept revisions 4, 3, 2, 1 converted, served again\n"+
		"mid r2: kept revision 1 converted, served again\n", r.stdout)

	// History, revisions and diffs across the old revisions.
	hist, err = store.History(ctx, "hist")
	require.NoError(t, err)
	require.Len(t, hist, 5)
	for i, want := range []string{"checked", "busy", "active", "active", "draft"} {
		assert.Equal(t, int64(5-i), hist[i].Revision)
		assert.Equal(t, want, hist[i].Status)
		assert.False(t, hist[i].OlderUnverified)
	}
	assert.Equal(t, "agent-7", hist[0].Author)
	assert.Equal(t, plan.ActionStatus, hist[1].Action, "the old change record still verifies")
	first, err := store.GetRevision(ctx, "hist", 1)
	require.NoError(t, err)
	assert.Equal(t, v1, first.Content)
	diff, err := store.Diff(ctx, "hist", 1, 3)
	require.NoError(t, err)
	assert.Contains(t, diff, "+- [ ] Test more")
	r = planctlOK(t, "-dir", dir, "diff", "hist", "2", "3")
	assert.Contains(t, r.stdout, "- [ ] Test more")

	// The approval holds; the held step is still the worker's, who finishes it.
	appr, err = store.Get(ctx, "appr")
	require.NoError(t, err)
	require.NotNil(t, appr.Approval)
	assert.Equal(t, "ana", appr.Approval.By)
	assert.Equal(t, int64(2), appr.Revision)
	mid, err := store.Get(ctx, "mid")
	require.NoError(t, err)
	assert.Equal(t, "worker-1", plan.ParseSteps(mid.Content)[0].Holder)
	_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "mid", Step: 1, State: plan.StepCompleted, By: "other"})
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, plan.CodeStepHeld, pe.Code)
	_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "mid", Step: 1, State: plan.StepCompleted, By: "worker-1"})
	require.NoError(t, err)

	// Nothing is left; a second migrate does nothing.
	after := snapshot(t, dir)
	r = planctlOK(t, "-dir", dir, "migrate")
	assert.Equal(t, "3 plans: nothing to migrate\n", r.stdout)
	assert.Equal(t, after, snapshot(t, dir), "a second migrate changed files")
	r = planctl(t, "-dir", dir, "check")
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "3 plans checked: nothing to do\n", r.stdout)
	report, err := store.Check(ctx)
	require.NoError(t, err)
	for _, p := range report.Plans {
		assert.Equal(t, int64(2), p.Format, p.Name)
	}
}

// snapshot is every file under dir with its bytes, the lock file aside.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".plan.lock" {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	}))
	return out
}

// A key planted in a plans folder of this release, with a plan "approved" under it by
// whoever can write plan files: check says it may have been planted and is never used;
// migrate, asked to adopt it or not, adopts nothing, and the plan stays unapproved.
func TestMigrateNeverAdoptsAKeyPlantedInAFolderOfThisRelease(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "plans")
	bin := planctlBinary(t)
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, append([]string{"-dir", dir}, args...)...)
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return string(out), code
	}
	file := filepath.Join(t.TempDir(), "ship.md")
	require.NoError(t, os.WriteFile(file, []byte("# Ship\n- [ ] Deploy (uses deploy_prod)\n"), 0o600))
	_, code := run("import", "ship", file)
	require.Zero(t, code)

	planted := []byte(strings.Repeat("m", 32))
	local, err := plan.NewLocalBackend(root)
	require.NoError(t, err)
	defer local.Close()
	forger, err := plan.NewStore(&plan.StoreConfig{Backend: local, ApprovalKey: planted})
	require.NoError(t, err)
	_, err = forger.Approve(ctx, "ship", 1, "ana")
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(filepath.Join(root, ".plans.approval-marks"))) // a writer of plan files has none
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".approval-key"), []byte(hex.EncodeToString(planted)+"\n"), 0o600))

	out, code := run("check")
	assert.Equal(t, exitPending, code)
	assert.Contains(t, out, "an approval key is at /plans/.approval-key, inside the plans folder: no plan file here is in 0.1.0's format, "+
		"so 0.1.0 did not leave it and it may have been planted; it is never used: remove it\n")

	out, code = run("migrate")
	assert.Zero(t, code)
	assert.Contains(t, out, "the approval key at /plans/.approval-key is not adopted: whoever can write plan files may have put it there")
	out, code = run("migrate", "-adopt-key")
	assert.Zero(t, code)
	assert.Contains(t, out, "the approval key at /plans/.approval-key is not adopted: no plan file here is in 0.1.0's format, so 0.1.0 did not leave it; remove it\n")
	assert.NotContains(t, out, "adopted the approval key")
	assert.NoFileExists(t, filepath.Join(root, ".plans.approval-key"), "no key was adopted")

	store, err := plan.NewStore(&plan.StoreConfig{Backend: local})
	require.NoError(t, err)
	p, err := store.Get(ctx, "ship")
	require.NoError(t, err)
	assert.Nil(t, p.Approval, "an approval sealed with a planted key")
	out, _ = run("show", "ship")
	assert.NotContains(t, out, "approved by ana")
}

// After an upgrade, list marks the plans an upgrade left something to do for (an approval
// of 0.1.0 reads "no" until then) and names `planctl check`; once nothing is left, it says
// nothing of it.
func TestListPointsToCheckAfterAnUpgrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	file := filepath.Join(t.TempDir(), "body.md")
	require.NoError(t, os.WriteFile(file, []byte("# Release\n- [ ] Build (uses deploy)\n"), 0o600))
	run010(t, dir, "import", "appr", file)
	run010(t, dir, "approve", "appr", "-rev", "1", "-by", "ana")

	r := runBuilt(t, "-dir", dir, "list")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `appr\s+Release\s+draft\s+\S+ 0/1\s+2\s+no, see check\s`, r.stdout)
	assert.Contains(t, r.stdout, "an upgrade left something to do in 1 plan: `planctl check` says what\n")

	r = runBuilt(t, "-dir", dir, "migrate", "-adopt-key")
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runBuilt(t, "-dir", dir, "list")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Regexp(t, `appr\s+Release\s+draft\s+\S+ 0/1\s+2\s+r1 by ana\s`, r.stdout)
	assert.NotContains(t, r.stdout, "check")
}
