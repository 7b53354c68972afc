package main

import (
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

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
