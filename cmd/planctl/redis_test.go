//go:build unix

package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// redisArgs returns the flags for plans in the test server under a key prefix of this
// test's own.
func redisArgs(t *testing.T) []string {
	t.Helper()
	url := redisURL(t)
	b := make([]byte, 6)
	rand.Read(b)
	return []string{"-redis", url, "-prefix", "planctl-test-" + hex.EncodeToString(b) + ":"}
}

// Every command works on plans kept in Redis, as on a folder.
func TestRedisCommands(t *testing.T) {
	args := redisArgs(t)
	with := func(more ...string) []string { return append(append([]string{}, args...), more...) }
	file := filepath.Join(t.TempDir(), "ship.md")
	require.NoError(t, os.WriteFile(file, []byte(shipBody), 0o600))

	r := planctlOK(t, with("list")...)
	assert.Equal(t, "No plans in "+strings.TrimSuffix(args[1], "/0")+"/0 (prefix "+args[3]+") /plans\n", r.stdout,
		"an empty list says where it looked: server, prefix, folder")

	r = planctlOK(t, with("import", "ship", file)...)
	assert.Equal(t, "ship: created from "+file+", revision 1, [#####-----] 2/4\n", r.stdout)
	r = planctlOK(t, with("list")...)
	assert.Regexp(t, `(?m)^ship\s+Ship 2\.0\s+draft\s+\[#####-----\] 2/4\s+1\s`, r.stdout)
	r = planctl(t, with("status", "ship", "done", "-rev", "7")...)
	assert.Equal(t, exitConflict, r.code)
	assert.Equal(t, "planctl: revision_conflict: ship is at revision 1, not 7; nothing was changed. "+
		"Check it with `planctl show ship` and retry with -rev 1\n", r.stderr)
	planctlOK(t, with("status", "ship", "done", "-rev", "1")...)
	assert.Contains(t, planctl(t, with("show", "ship")...).stdout, "status:   done\n")

	// Plans in /plans, -dir naming the folder above.
	wantExit(t, exitFailed, " / holds no plans, but its plans folder holds 1 plan: use -dir /plans\n", with("-dir", "/", "list")...)

	planctlOK(t, with("rm", "ship")...)
	assert.Equal(t, exitNotFound, planctl(t, with("show", "ship")...).code)
}

// watch on Redis follows a change another process makes there.
func TestRedisWatch(t *testing.T) {
	args := redisArgs(t)
	bin := planctlBinary(t)
	var out lockedBuffer
	stop := watching(t, &out, args...)
	waitFor(t, "output", out.String, `no plans in redis://\S+ \(prefix \S+\) /plans yet; waiting for changes\n$`)

	cmd := exec.Command(bin, append(args, "import", "ship", "-")...)
	cmd.Stdin = strings.NewReader(shipBody)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	waitFor(t, "output", out.String, `\n\d\d:\d\d:\d\d ship: \[#####-----\] 2/4  50%, draft, revision 1, doing 2: Test, by planctl\n$`)
	assert.Equal(t, exitOK, stop())
}

func TestRedisUnreachable(t *testing.T) {
	wantExit(t, exitFailed, "planctl: cannot reach Redis at 127.0.0.1:1: ", "-redis", "redis://127.0.0.1:1/0", "list")
	wantExit(t, exitUsage, "planctl: -redis http://x is not a Redis URL such as redis://localhost:6379/0", "-redis", "http://x", "list")
	wantExit(t, exitUsage, "-prefix applies with -redis only", "-prefix", "p:", "list")
}

// approve, log, diff, take and revoke work on plans kept in Redis as on a folder.
func TestRedisApproveLogDiffTake(t *testing.T) {
	args := redisArgs(t)
	with := func(more ...string) []string { return append(append([]string{}, args...), more...) }
	r := planctlWithInput(t, shipBody, with("import", "ship", "-")...)
	require.Equal(t, exitOK, r.code, r.stderr)

	r = planctlOK(t, with("take", "ship", "3", "-to", "worker-1")...)
	assert.Equal(t, "ship: step 3 (Tag) is now held by worker-1; revision 2\n", r.stdout)
	wantExit(t, exitConflict, "See what changed with `planctl diff ship 1 2`, then approve with -rev 2\n", with("approve", "ship", "-rev", "1", "-by", "alice")...)
	r = planctlOK(t, with("diff", "ship", "1", "2")...)
	assert.Contains(t, r.stdout, "\n-- [ ] Tag\n+- [~] Tag (@worker-1)\n")
	r = planctlOK(t, with("approve", "ship", "-rev", "2", "-by", "alice")...)
	assert.Equal(t, "ship: revision 2 approved by alice; the plan is now at revision 3\n", r.stdout)
	r = planctl(t, with("show", "ship")...)
	assert.Contains(t, r.stdout, "\napproval: approved at r2 by alice, ")
	assert.Contains(t, r.stdout, "\nheld:     step 2 by nobody; step 3 by worker-1\n")

	planctlOK(t, with("revoke", "ship")...)
	r = planctlOK(t, with("log", "ship")...)
	got := lines(r.stdout)
	require.Len(t, got, 5, r.stdout)
	for i, action := range []string{"revoke", "approve r2", "step", "write"} {
		assert.Regexp(t, `^`+strconv.Itoa(4-i)+`\s+\S+ \S+\s+`+action+`\s`, got[i+1])
	}
	assert.Contains(t, got[2], " alice ")
}
