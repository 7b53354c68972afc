//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// inProject runs the built planctl in the folder project, on its default ./.plans, with
// the config folder cfg; it returns stdout and stderr and fails the test on a bad exit.
func inProject(t *testing.T, project, cfg string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(planctlBinary(t), args...)
	cmd.Dir = project
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLAN_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "XDG_CONFIG_HOME="+cfg, "USER=alice")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "planctl %v: %s", args, stderr.String())
	return stdout.String(), stderr.String()
}

// git runs git in dir and returns its output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return string(out)
}

// ownKeys lists the key files planctl keeps under cfg.
func ownKeys(t *testing.T, cfg string) []string {
	t.Helper()
	keys, err := filepath.Glob(filepath.Join(cfg, "planctl", "keys", "*", keyFileName))
	require.NoError(t, err)
	return keys
}

// In a project, planctl's default ./.plans keeps its approval key under the user's config
// folder and ignores itself: `git add -A` takes neither the key nor the plans, and the
// .gitignore planctl wrote is nothing the Store reports.
func TestTheDefaultPlansFolderKeepsItsKeyOutOfTheProject(t *testing.T) {
	requireTool(t, "git")
	project, cfg := t.TempDir(), t.TempDir()
	git(t, project, "init", "-q")
	file := filepath.Join(t.TempDir(), "ship.md")
	require.NoError(t, os.WriteFile(file, []byte(shipBody), 0o600))

	_, stderr := inProject(t, project, cfg, "import", "ship", file)
	assert.Contains(t, stderr, "made the approval key of .plans at "+cfg)
	_, stderr = inProject(t, project, cfg, "approve", "ship", "-rev", "1")
	assert.Empty(t, stderr)
	out, _ := inProject(t, project, cfg, "show", "ship")
	assert.Contains(t, out, "approved at r1 by alice")

	keys := ownKeys(t, cfg)
	require.Len(t, keys, 1)
	st, err := os.Stat(keys[0])
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	entries, err := os.ReadDir(project)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"..plans.approval-marks", ".git", ".plans"}, names, "beside the plans folder only the Store's rollback marks")

	git(t, project, "add", "-A")
	assert.Empty(t, git(t, project, "diff", "--cached", "--name-only"), "git add -A takes nothing of the plans")
	ignore, err := os.ReadFile(filepath.Join(project, ".plans", ".gitignore"))
	require.NoError(t, err)
	assert.Equal(t, gitignore, string(ignore))

	out, stderr = inProject(t, project, cfg, "list")
	assert.Empty(t, stderr, "the .gitignore is no stray")
	assert.Contains(t, out, "r1 by alice")
	out, _ = inProject(t, project, cfg, "check")
	assert.Equal(t, "1 plans checked: nothing to do\n", out)
}

// A project where an earlier planctl kept the key beside ./.plans keeps its approvals:
// planctl uses that key where it is, says so and how to move it, and after the move finds
// it in the config folder.
func TestAKeyAnEarlierPlanctlLeftInTheProjectStillSealsAndCanMove(t *testing.T) {
	project, cfg := t.TempDir(), t.TempDir()
	// What planctl did before: the Store on the project with BaseDir /.plans.
	ctx := context.Background()
	backend, err := plan.NewLocalBackend(project)
	require.NoError(t, err)
	old, err := plan.NewStore(&plan.StoreConfig{Backend: backend, BaseDir: "/.plans"})
	require.NoError(t, err)
	body := shipBody
	p, err := old.Put(ctx, plan.Update{Name: "ship", Content: &body})
	require.NoError(t, err)
	_, err = old.Approve(ctx, "ship", p.Revision, "alice")
	require.NoError(t, err)
	require.NoError(t, backend.Close())
	left := filepath.Join(project, "..plans.approval-key")
	require.FileExists(t, left)

	out, stderr := inProject(t, project, cfg, "show", "ship")
	assert.Contains(t, out, "approved at r1 by alice")
	assert.Contains(t, stderr, "the approval key of .plans is at "+left+", in the project, where an earlier planctl made it")
	move := regexpFind(t, "`(mkdir -p .* && mv .*)`", stderr)
	_, err = exec.Command("sh", "-c", move).CombinedOutput()
	require.NoError(t, err)
	assert.NoFileExists(t, left)
	require.Len(t, ownKeys(t, cfg), 1)

	out, stderr = inProject(t, project, cfg, "show", "ship")
	assert.Contains(t, out, "approved at r1 by alice", "the moved key still seals the approval")
	assert.Empty(t, stderr)
	_, stderr = inProject(t, project, cfg, "revoke", "ship")
	assert.Empty(t, stderr)
	assert.NoFileExists(t, left, "nothing makes a key in the project again")
}

// Once planctl has its own key for a folder, a key put beside the folder later (by a
// program, or by whoever can write the project) does not replace it: planctl's approvals
// still hold, and planctl says the two keys differ.
func TestAKeyPutBesideTheFolderLaterDoesNotReplacePlanctls(t *testing.T) {
	project, cfg := t.TempDir(), t.TempDir()
	file := filepath.Join(t.TempDir(), "ship.md")
	require.NoError(t, os.WriteFile(file, []byte(shipBody), 0o600))
	inProject(t, project, cfg, "import", "ship", file)
	inProject(t, project, cfg, "approve", "ship", "-rev", "1")
	planted := filepath.Join(project, "..plans.approval-key")
	require.NoError(t, os.WriteFile(planted, []byte(strings.Repeat("ab", 32)+"\n"), 0o600))

	out, stderr := inProject(t, project, cfg, "show", "ship")
	assert.Contains(t, out, "approved at r1 by alice")
	assert.Contains(t, stderr, planted+" holds another approval key than planctl's")
}

// regexpFind returns the first group of pattern in s, failing the test when absent.
func regexpFind(t *testing.T, pattern, s string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(s)
	require.NotNil(t, m, s)
	return m[1]
}
