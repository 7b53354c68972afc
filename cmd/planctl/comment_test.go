//go:build unix

package main

import (
	"context"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/api"
)

// planctl comment, run as its own process, records a person's comment on a step and on the
// plan, which every Store reads and show prints on one line each, control characters
// stripped; planctl resolve closes one. A step the plan lacks, a STEP that is no number and
// an unknown comment are refused, and nothing is written.
func TestPlanctlCommentsOnAStepAndResolves(t *testing.T) {
	dir := newDir(t)
	out, err := exec.Command(planctlBinary(t), "-dir", dir, "comment", "ship", "3", "Tag from main\x1b[2J only", "-by", "alice").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ship: comment c1 on step 3 by alice; revision 2\n", string(out))
	out, err = exec.Command(planctlBinary(t), "-dir", dir, "comment", "ship", "plan", "Who is on call?", "-by", "bob").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ship: comment c2 on the plan by bob; revision 3\n", string(out))

	p, err := agentStore(t, dir, "host").Get(context.Background(), "ship")
	require.NoError(t, err)
	require.Len(t, p.Comments, 2)
	assert.Equal(t, api.Comment{ID: "c1", Step: 3, Author: "alice", At: p.Comments[0].At, Revision: 1, Text: "Tag from main[2J only"}, p.Comments[0])

	show := planctlOK(t, "-dir", dir, "show", "ship").stdout
	assert.Regexp(t, `(?m)^comment:  c1 on step 3 by alice, r1, \d{4}-\S+ \S+ \S+: Tag from main\[2J only \[open\]$`, show)
	assert.Regexp(t, `(?m)^comment:  c2 on the plan by bob, r2, .*: Who is on call\? \[open\]$`, show)
	assert.NotContains(t, show, "\x1b")

	wantExit(t, exitUsage, "STEP is a step number", "-dir", dir, "comment", "ship", "three", "x", "-by", "alice")
	wantExit(t, exitFailed, "no step 9", "-dir", dir, "comment", "ship", "9", "x", "-by", "alice")
	wantExit(t, exitNotFound, "no comment", "-dir", dir, "resolve", "ship", "c7", "-by", "alice")
	r := planctlOK(t, "-dir", dir, "resolve", "ship", "c2", "-by", "bob")
	assert.Equal(t, "ship: comment c2 resolved by bob; 1 open; revision 4\n", r.stdout)
	assert.Regexp(t, `(?m)^comment:  c2 on the plan by bob, .* \[resolved by bob\]$`, planctlOK(t, "-dir", dir, "show", "ship").stdout)
}
