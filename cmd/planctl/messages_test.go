package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// planctl speaks to people in its own vocabulary: flags and commands they can type, never
// the tool names and arguments that the library's messages give models.
func TestMessagesSpeakPlanctl(t *testing.T) {
	dir := newDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.md"), []byte("not a plan\n"), 0o600))
	empty := filepath.Join(t.TempDir(), "empty.md")
	require.NoError(t, os.WriteFile(empty, []byte(" \n"), 0o600))
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
	}
	for _, c := range cases {
		r := planctl(t, append([]string{"-dir", dir}, c.args...)...)
		assert.Equal(t, c.code, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.want, "%v", c.args)
		for _, word := range []string{"list_plans", "read_plan", "write_plan", "delete_plan", "last_known_revision", "call "} {
			assert.NotContains(t, r.stderr, word, "%v", c.args)
		}
	}
}

// Given the folder above the plans folder, planctl says where the plans are.
func TestWrongDirSuggestsPlansFolder(t *testing.T) {
	dir := newDir(t)
	root := filepath.Dir(dir)
	r := planctl(t, "-dir", root, "list")
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "planctl: "+root+" holds no plans, but its plans folder holds 1 plan: use -dir "+dir+"\n", r.stderr)
	assert.Empty(t, r.stdout)
	r = planctl(t, "-dir", root, "show", "ship")
	assert.Equal(t, exitNotFound, r.code)
	assert.Equal(t, "planctl: not_found: no plan named ship in "+root+", but its plans folder has one: use -dir "+dir+"\n", r.stderr)
	r = planctl(t, "-dir", t.TempDir(), "list")
	assert.Equal(t, exitOK, r.code, "an empty folder with no plans folder is just empty")
}
