//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// tmuxSession is a tmux server of its own running one shell in a fixed-size window.
type tmuxSession struct {
	t      *testing.T
	bin    string
	socket string
	env    []string
}

// newTmux starts a tmux server on a private socket with a shell whose prompt is "$ ", and
// stops it by PID when the test ends.
func newTmux(t *testing.T, path string) *tmuxSession {
	t.Helper()
	s := &tmuxSession{t: t, bin: requireTool(t, "tmux"), socket: filepath.Join(tmpRoot, "tmux-"+strconv.Itoa(os.Getpid())+"-"+t.Name())}
	home := t.TempDir()
	s.env = []string{"PATH=" + path + ":/usr/bin:/bin", "HOME=" + home, "TERM=xterm-256color", "PS1=$ ", "ENV=", "LANG=C.UTF-8"}
	s.run("-f", "/dev/null", "new-session", "-d", "-s", "w", "-x", "110", "-y", "16", "sh")
	pid, err := strconv.Atoi(strings.TrimSpace(s.run("display-message", "-p", "-t", "w", "#{pid}")))
	require.NoError(t, err)
	t.Cleanup(func() { stopPID(t, pid) })
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(s.bin, append([]string{"-S", s.socket}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	require.NoError(s.t, err, "tmux %v: %s", args, out)
	return string(out)
}

// typeLine types line into the shell and presses Enter.
func (s *tmuxSession) typeLine(line string) {
	s.run("send-keys", "-t", "w", "-l", line)
	s.run("send-keys", "-t", "w", "Enter")
}

// screen is what the window shows now.
func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", "w") }

// stopPID ends a process that is not this one's child and waits until it is gone.
func stopPID(t *testing.T, pid int) {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("tmux server %d did not stop on SIGTERM", pid)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rowOf returns the screen line of plan name.
func rowOf(screen, name string) string {
	for _, line := range strings.Split(screen, "\n") {
		if strings.HasPrefix(line, name+" ") {
			return line
		}
	}
	return ""
}

// A person runs planctl watch in a terminal while agents and other people change the plans
// from other processes: the view follows every change, and Ctrl-C ends it cleanly.
func TestWatchInTmux(t *testing.T) {
	bin := planctlBinary(t)
	dir := newDir(t)
	tm := newTmux(t, filepath.Dir(bin))
	tm.typeLine("planctl -dir " + dir + " watch")
	screen := waitFor(t, "screen", tm.screen, `(?m)^ship +\[#####-----\] 2/4 +50% +draft +1 +doing 2: Test +planctl *$`)
	assert.Regexp(t, `(?m)^planctl watch  `+regexp.QuoteMeta(dir)+`  1 plan  at \d\d:\d\d:\d\d  \(Ctrl-C quits\)$`, screen)
	assert.Regexp(t, `(?m)\(Ctrl-C quits\)\n\nNAME +PROGRESS +STATUS +REV +CURRENT STEP +LAST CHANGE BY *$`, screen)

	// Another person, in another process.
	out, err := exec.Command(bin, "-dir", dir, "status", "ship", "in-progress").CombinedOutput()
	require.NoError(t, err, "%s", out)
	waitFor(t, "screen", tm.screen, `(?m)^ship +\[#####-----\] 2/4 +50% +in-progress +2 +doing 2: Test +planctl *$`)

	// An agent, with its own Store on the same folder.
	backend, err := plan.NewLocalBackend(filepath.Dir(dir))
	require.NoError(t, err)
	defer backend.Close()
	agent, err := plan.NewStore(&plan.StoreConfig{Backend: backend, DefaultAuthor: "worker"})
	require.NoError(t, err)
	ctx := plan.WithActor(context.Background(), "worker") // the agent is who the history names
	_, err = agent.Put(ctx, plan.Update{Name: "docs", Content: ptr("# Docs\n- [~] Draft\n- [ ] Review\n"), Status: "writing"})
	require.NoError(t, err)
	_, _, err = agent.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 2, State: plan.StepCompleted})
	require.NoError(t, err)
	_, err = agent.Put(ctx, plan.Update{Name: "ship", Author: "worker"})
	require.NoError(t, err)
	screen = waitFor(t, "screen", tm.screen, `(?m)^ship +\[#######---\] 3/4 +75% +in-progress +4 +next 3: Tag +worker *$`)
	assert.Regexp(t, `(?m)^docs +\[----------\] 0/2 +0% +writing +1 +doing 1: Draft +worker *$`, screen)
	assert.Contains(t, screen, "  2 plans  ")
	assert.Less(t, strings.Index(screen, "\ndocs "), strings.Index(screen, "\nship "), "rows sorted by name")

	out, err = exec.Command(bin, "-dir", dir, "rm", "docs").CombinedOutput()
	require.NoError(t, err, "%s", out)
	screen = waitFor(t, "screen", tm.screen, `  1 plan  `)
	assert.Empty(t, rowOf(screen, "docs"))
	assert.NotEmpty(t, rowOf(screen, "ship"))

	tm.run("send-keys", "-t", "w", "C-c")
	tm.typeLine("echo exit=$?") // may be echoed before the prompt is back: only its output counts
	waitFor(t, "screen", tm.screen, `(?m)exit=0$`)

	// The person approves what they saw, as $USER, and reads it back in the log.
	tm.typeLine("clear; USER=alice planctl -dir " + dir + " approve ship -rev 4; planctl -dir " + dir + " log ship")
	screen = waitFor(t, "screen", tm.screen, `(?m)^1 +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +write +planctl +draft *$`)
	assert.Regexp(t, `(?m)^ship: revision 4 approved by alice; the plan is now at revision 5 *$`, screen)
	assert.Regexp(t, `(?m)^REV +TIME +ACTION +BY +STATUS *\n5 +\S+ \S+ +approve r4 +alice +in-progress *\n4 +\S+ \S+ +write +worker +in-progress *$`, screen)
	p, err := agent.Get(ctx, "ship")
	require.NoError(t, err)
	require.NotNil(t, p.Approval)
	assert.Equal(t, "alice", p.Approval.By)
	assert.EqualValues(t, 4, p.Approval.Revision)
}
