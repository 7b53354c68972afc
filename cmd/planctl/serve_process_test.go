//go:build unix

package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveBinary runs the built planctl's serve on dir as USER=alice on a free loopback port
// until the test ends, and returns what it printed.
func serveBinary(t *testing.T, dir string) served {
	t.Helper()
	cmd := exec.Command(planctlBinary(t), "-dir", dir, "serve", "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "USER=alice")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			assert.NoError(t, err, "serve ends quietly on interrupt")
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("serve did not stop on interrupt")
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return parseBanner(t, line)
}

// The built planctl serve answers only its URL: a process that did not read it gets 401
// for a read and for an approval; the person who opened it approves.
func TestServedBinaryActsOnlyForWhoeverOpenedItsURL(t *testing.T) {
	dir := newDir(t)
	s := serveBinary(t, dir)
	assert.Contains(t, s.banner, "acting as alice")
	resp, err := http.Get(s.base + "api/plans")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Equal(t, http.StatusUnauthorized, boardAction(t, http.DefaultClient, s.base+"api/plans/ship/approve", `{"revision":1}`))
	assert.NotContains(t, planctlOK(t, "-dir", dir, "show", "ship").stdout, "approved at")

	client := signedIn(t, s)
	require.Equal(t, http.StatusOK, boardAction(t, client, s.base+"api/plans/ship/approve", `{"revision":1}`))
	assert.Contains(t, planctlOK(t, "-dir", dir, "show", "ship").stdout, "approved at r1 by alice")
}

// Served by root as USER=alice, another user of the machine (nobody) sends what the board's
// page sends, with curl: it approves nothing as alice, hands no step of an approved plan
// to its own agent, and reads no plan.
func TestServeRefusesAnotherUserOfTheMachine(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run curl as another user (nobody)")
	}
	curl := requireTool(t, "curl")
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skipf("no user nobody: %v", err)
	}
	uid, err1 := strconv.ParseUint(nobody.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(nobody.Gid, 10, 32)
	require.NoError(t, err1)
	require.NoError(t, err2)

	dir := newDir(t)
	require.NoError(t, os.Chmod(filepath.Dir(dir), 0o700)) // nobody cannot list the plans folder
	s := serveBinary(t, dir)
	// curl runs as nobody, with nobody's groups only.
	asNobody := func(method, path, body string) string {
		t.Helper()
		args := []string{"-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", method,
			"-H", "X-Plan-Board: 1", "-H", "Content-Type: application/json"}
		if body != "" {
			args = append(args, "--data", body)
		}
		cmd := exec.Command(curl, append(args, s.base+path)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/"}
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
		out, err := cmd.Output()
		require.NoError(t, err, "curl as nobody")
		return strings.TrimSpace(string(out))
	}

	assert.Equal(t, "401", asNobody("POST", "api/plans/ship/approve", `{"revision":1}`))
	assert.NotContains(t, planctlOK(t, "-dir", dir, "show", "ship").stdout, "approved at")

	planctlOK(t, "-dir", dir, "approve", "ship", "-rev", "1", "-by", "alice")
	approved := planctlOK(t, "-dir", dir, "show", "ship").stdout
	assert.Equal(t, "401", asNobody("POST", "api/plans/ship/steps/3/holder", `{"revision":1,"holder":"mallory-agent"}`))
	assert.Equal(t, "401", asNobody("POST", "api/plans/ship/reject", `{"revision":1,"feedback":"no"}`))
	for _, path := range []string{"", "api/plans", "api/plans/ship", "api/events"} {
		assert.Equal(t, "401", asNobody("GET", path, ""), path)
	}
	shown := planctlOK(t, "-dir", dir, "show", "ship").stdout
	assert.Equal(t, approved, shown, "the plan is as alice approved it")
	assert.Contains(t, shown, "approved at r1 by alice")
	assert.NotContains(t, shown, "mallory-agent")
}
