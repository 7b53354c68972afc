package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// planctl speaks to people in its own vocabulary: flags and commands they can type, never
// the tool names and arguments that the library's messages give models.
func TestMessagesSpeakPlanctl(t *testing.T) {
	dir := newDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.md"), []byte("not a plan\n"), 0o600))
	empty := filepath.Join(t.TempDir(), "empty.md")
	require.NoError(t, os.WriteFile(empty, []byte(" \n"), 0o600))
	cyclic := filepath.Join(t.TempDir(), "cyclic.md")
	require.NoError(t, os.WriteFile(cyclic, []byte("# Loop\n- [ ] A (after 2)\n- [ ] B (after 1)\n"), 0o600))
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"status", "ship", "done", "-rev", "9"}, exitConflict, "retry with -rev 1"},
		{[]string{"rm", "ship", "-rev", "3"}, exitConflict, "`planctl show ship`"},
		{[]string{"show", "nope"}, exitNotFound, "no plan named nope in " + dir + "; `planctl list` shows the plans there"},
		{[]string{"status", "nope", "done", "-rev", "2"}, exitNotFound, "no plan named nope"},
		{[]string{"show", "bad"}, exitFailed, "`planctl rm bad` (without -rev)"},
		{[]string{"list"}, exitOK, "`planctl rm bad` removes it"},
		{[]string{"status", "ship", " "}, exitUsage, "STATUS is empty"},
		{[]string{"status", "ship", strings.Repeat("x", 2000)}, exitFailed, "over 1024 bytes"},
		{[]string{"import", "ship", empty}, exitFailed, empty + " is empty"},
		{[]string{"import", "Ship", empty}, exitFailed, `"Ship" is not a plan name`},
		{[]string{"import", "loop", cyclic}, exitFailed, "the steps of loop would wait for each other in a cycle (steps 1, 2)"},
		{[]string{"approve", "ship", "-rev", "5", "-by", "a"}, exitConflict, "`planctl show ship` and approve with -rev 1"},
		{[]string{"approve", "nope", "-rev", "1", "-by", "a"}, exitNotFound, "no plan named nope"},
		{[]string{"diff", "ship", "1", "4"}, exitNotFound, "ship has no revision 4 yet"},
		{[]string{"log", "bad"}, exitFailed, "`planctl rm bad` (without -rev)"},
		{[]string{"take", "ship", "7", "-to", "w"}, exitFailed, "ship has no step 7"},
		{[]string{"take", "ship", "1", "-to", "w"}, exitFailed, "step 1 of ship is completed"},
		{[]string{"revoke", "nope"}, exitNotFound, "no plan named nope"},
	}
	for _, c := range cases {
		r := planctl(t, append([]string{"-dir", dir}, c.args...)...)
		assert.Equal(t, c.code, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.want, "%v", c.args)
		for _, word := range []string{"list_plans", "read_plan", "write_plan", "delete_plan", "update_plan_step", "last_known_revision", "call ", "since_revision"} {
			assert.NotContains(t, r.stderr, word, "%v", c.args)
		}
	}
}

// Given the folder above the plans folder, planctl says where the plans are.
func TestWrongDirSuggestsPlansFolder(t *testing.T) {
	dir := newDir(t)
	root := filepath.Dir(dir)
	wantPlansFolderSuggested(t, dir, "list")
	r := planctl(t, "-dir", root, "show", "ship")
	assert.Equal(t, exitNotFound, r.code)
	assert.Equal(t, "planctl: not_found: no plan named ship in "+root+", but its plans folder has one: use -dir "+dir+"\n", r.stderr)
	r = planctl(t, "-dir", t.TempDir(), "list")
	assert.Equal(t, exitOK, r.code, "an empty folder with no plans folder is just empty")
}

// Refusals that no planctl command meets today still read in planctl's words, should one do.
func TestDescribeStepHeldAndNotApproved(t *testing.T) {
	c := &cli{command: "status", args: []string{"ship", "done"}}
	msg, exit := c.describe(&plan.Error{Code: plan.CodeStepHeld, Reason: "step_held", Name: "ship", Step: 3, Agent: "worker-1"})
	assert.Equal(t, exitFailed, exit)
	assert.Equal(t, "step 3 of ship is held by worker-1; `planctl take ship 3 -to WHO` hands it over, `planctl take ship 3` releases it", msg)
	msg, exit = c.describe(&plan.Error{Code: plan.CodeNotApproved, Reason: "not_approved", Name: "ship"})
	assert.Equal(t, exitFailed, exit)
	assert.Equal(t, "ship is not approved; review it with `planctl show ship`, then `planctl approve ship -rev N`", msg)
}

// wantPlansFolderSuggested runs planctl with args on the folder holding dir, the plans
// folder, and checks that it fails saying to use -dir dir.
func wantPlansFolderSuggested(t *testing.T, dir string, args ...string) {
	t.Helper()
	root := filepath.Dir(dir)
	r := planctl(t, append([]string{"-dir", root}, args...)...)
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "planctl: "+root+" holds no plans, but its plans folder holds 1 plan: use -dir "+dir+"\n", r.stderr)
	assert.Empty(t, r.stdout)
}
