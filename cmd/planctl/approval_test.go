package main

import (
	"context"
	"strings"
	"testing"

	"github.com/einoplan/plan/api"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// A person approves the revision they read; step moves keep the approval, a rewrite of the
// body withdraws it, and list, show and log say so.
func TestApproveRoundTrip(t *testing.T) {
	dir := newDir(t)
	ctx := context.Background()
	r := planctlOK(t, "-dir", dir, "approve", "ship", "-rev", "1", "-by", "alice")
	assert.Equal(t, "ship: revision 1 approved by alice; the plan is now at revision 2\n", r.stdout)

	agent := agentStore(t, dir, "worker")
	p, err := agent.Get(ctx, "ship")
	require.NoError(t, err)
	require.NotNil(t, p.Approval)
	assert.Equal(t, api.Approval{Revision: 1, By: "alice", At: p.Approval.At}, *p.Approval)
	assert.Equal(t, shipBody, p.Content, "approving leaves the body as it was")

	r = planctl(t, "-dir", dir, "show", "ship")
	assert.Regexp(t, `(?m)^approval: approved at r1 by alice, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+$`, r.stdout)
	r = planctl(t, "-dir", dir, "list")
	assert.Regexp(t, `(?m)^ship\s.*\s2\s+r1 by alice\s+\d{4}-`, r.stdout)
	r = planctl(t, "-dir", dir, "log", "ship")
	assert.Regexp(t, `^2\s+\S+ \S+\s+approve r1\s+alice\s+draft$`, lines(r.stdout)[1])

	_, _, err = agent.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 3, State: plan.StepInProgress, By: "worker-1"})
	require.NoError(t, err)
	assert.Contains(t, planctl(t, "-dir", dir, "show", "ship").stdout, "approval: approved at r1 by alice, ")

	_, err = agent.Put(ctx, plan.Update{Name: "ship", Content: ptr(shipBody + "- [ ] Announce\n")})
	require.NoError(t, err)
	assert.NotContains(t, planctl(t, "-dir", dir, "show", "ship").stdout, "\napproval:", "a plan not approved shows no approval line")
	assert.Regexp(t, `(?m)^ship\s.*\s4\s+no\s+\d{4}-`, planctl(t, "-dir", dir, "list").stdout)
}

// An agent changes the plan after the person read it: the approval is refused, nothing is
// approved, and the message says how to see what changed.
func TestApproveRefusedWhenPlanMovedOn(t *testing.T) {
	dir := newDir(t)
	ctx := context.Background()
	agent := agentStore(t, dir, "worker")
	_, err := agent.Put(ctx, plan.Update{Name: "ship", Content: ptr(strings.Replace(shipBody, "Tag", "Tag v2", 1))})
	require.NoError(t, err)

	r := planctl(t, "-dir", dir, "approve", "ship", "-rev", "1", "-by", "alice")
	assert.Equal(t, exitConflict, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, "planctl: revision_conflict: ship changed since revision 1: it is at revision 2 now, and nothing was approved. "+
		"See what changed with `planctl diff ship 1 2`, then approve with -rev 2\n", r.stderr)
	p, err := agent.Get(ctx, "ship")
	require.NoError(t, err)
	assert.Nil(t, p.Approval)
	assert.EqualValues(t, 2, p.Revision)

	r = planctlOK(t, "-dir", dir, "diff", "ship", "1", "2")
	assert.Contains(t, r.stdout, "\n-- [ ] Tag\n+- [ ] Tag v2\n")

	r = planctl(t, "-dir", dir, "approve", "ship", "-rev", "9", "-by", "alice")
	assert.Equal(t, exitConflict, r.code)
	assert.Equal(t, "planctl: revision_conflict: ship is at revision 2, not 9; nothing was approved. "+
		"Review it with `planctl show ship` and approve with -rev 2\n", r.stderr)

	require.Equal(t, exitOK, planctl(t, "-dir", dir, "approve", "ship", "-rev", "2", "-by", "alice").code)
	r = planctl(t, "-dir", dir, "approve", "ship", "-rev", "2", "-by", "bob")
	assert.Equal(t, exitConflict, r.code)
	assert.Equal(t, "planctl: revision_conflict: revision 2 of ship is approved already, by alice; nothing was changed "+
		"(the plan is at revision 3)\n", r.stderr)
}

func TestApproveWho(t *testing.T) {
	dir := newDir(t)
	t.Setenv("USER", "carol")
	r := planctlOK(t, "-dir", dir, "approve", "ship", "-rev", "1")
	assert.Equal(t, "ship: revision 1 approved by carol; the plan is now at revision 2\n", r.stdout)

	t.Setenv("USER", "")
	r = planctl(t, "-dir", dir, "approve", "ship", "-rev", "2")
	assert.Equal(t, exitUsage, r.code)
	assert.Equal(t, "planctl: $USER is not set: say who approves with -by WHO\n", r.stderr)
	for _, by := range []string{"", " ", strings.Repeat("x", 1100)} {
		r = planctl(t, "-dir", dir, "approve", "ship", "-rev", "2", "-by", by)
		assert.Equal(t, exitUsage, r.code)
		assert.Contains(t, r.stderr, "planctl: invalid_argument: -by must name who approves: not empty, at most 1024 bytes of UTF-8")
	}
	r = planctl(t, "-dir", dir, "approve", "ship")
	assert.Equal(t, exitUsage, r.code)
	assert.Equal(t, "planctl: approve needs -rev N, the revision you reviewed: `planctl show ship` prints it\n", r.stderr)
	wantExit(t, exitUsage, "revisions start at 1", "-dir", dir, "approve", "ship", "-rev", "0", "-by", "x")
	wantExit(t, exitNotFound, "planctl: not_found: no plan named nope", "-dir", dir, "approve", "nope", "-rev", "1", "-by", "x")
	wantExit(t, exitUsage, "planctl: -by applies to approve, comment, complete, reject and resolve only, not to show\n", "-dir", dir, "show", "ship", "-by", "x")
	p, err := agentStore(t, dir, "w").Get(context.Background(), "ship")
	require.NoError(t, err)
	assert.Equal(t, "carol", p.Approval.By, "no refused approval was written")
}

func TestRevoke(t *testing.T) {
	dir := newDir(t)
	require.Equal(t, exitOK, planctl(t, "-dir", dir, "approve", "ship", "-rev", "1", "-by", "alice").code)
	r := planctlOK(t, "-dir", dir, "revoke", "ship")
	assert.Equal(t, "ship: the approval of revision 1 by alice revoked; the plan is now at revision 3\n", r.stdout)
	assert.NotContains(t, planctl(t, "-dir", dir, "show", "ship").stdout, "\napproval:", "a plan not approved shows no approval line")
	assert.Regexp(t, `^3\s+\S+ \S+\s+revoke\s`, lines(planctl(t, "-dir", dir, "log", "ship").stdout)[1])

	r = planctlOK(t, "-dir", dir, "revoke", "ship")
	assert.Equal(t, "ship: not approved, nothing to revoke (revision 3)\n", r.stdout)
	assert.Contains(t, planctl(t, "-dir", dir, "show", "ship").stdout, "revision: 3\n", "nothing was written")

	wantExit(t, exitNotFound, "planctl: not_found: no plan named nope", "-dir", dir, "revoke", "nope")
}
