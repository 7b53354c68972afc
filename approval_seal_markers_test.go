package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A hand edit that only changes step markers (marking the security review done, so the
// deploy step waiting for it is ready) is a change to which steps are done: a Store reads
// the plan as not approved, and the agent that then takes the deploy step cannot deploy.
func TestAHandEditOfStepMarkersVoidsTheApproval(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	backend, err := plan.NewLocalBackend(dir)
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	body := "# Release\n- [ ] Run the security review\n- [ ] Deploy to production (after 1) (uses deploy_prod)\n"
	p, err := store.Put(ctx, plan.Update{Name: "release", Content: &body})
	require.NoError(t, err)
	_, err = store.Approve(ctx, "release", p.Revision, "ana")
	require.NoError(t, err)

	file := filepath.Join(dir, "plans", "release.md")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	edited := strings.Replace(string(raw), "- [ ] Run the security review", "- [x] Run the security review", 1)
	require.NotEqual(t, string(raw), edited)
	require.NoError(t, os.WriteFile(file, []byte(edited), 0o600))

	fresh, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	got, err := fresh.Get(ctx, "release")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "a plan whose steps were marked done by hand is not the plan approved")

	var deploys atomic.Int32
	var log gateLog
	_, runner := usesAgent(t, &plan.Config{Backend: backend, AgentName: "worker", GatedTools: []string{"deploy_prod"}},
		filesystem.NewInMemoryBackend(), &deploys, &log, takeStep("release", 2), deploy)
	gateEvents(t, runner.Query(ctx, "deploy"))
	assert.Zero(t, deploys.Load(), "deploy_prod ran under an approval the edit should have voided")
	calls := log.calls()
	require.NotEmpty(t, calls)
	assert.False(t, calls[len(calls)-1].Allowed, "%+v", calls)
}

// A hand edit that drops the plan's approval requirement (so an agent could skip the steps
// others wait for) voids its approval too.
func TestAHandEditDroppingTheApprovalRequirementVoidsTheApproval(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	backend, err := plan.NewLocalBackend(dir)
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "planner", RequireApproval: true})
	require.NoError(t, err)
	body := "# Release\n- [ ] Run the security review\n- [ ] Deploy to production (after 1) (uses deploy_prod)\n"
	results := runTools(t, plantest.NewScriptedModel(writePlanCall("release", body, 0), plantest.Answer("ok")), mw)
	require.Len(t, results, 1)
	require.Empty(t, errorCode(t, results[0]), results[0])
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	require.True(t, p.RequiresApproval)
	_, err = store.Approve(ctx, "release", p.Revision, "ana")
	require.NoError(t, err)

	file := filepath.Join(dir, "plans", "release.md")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	edited := strings.Replace(string(raw), "requires_approval: true\n", "", 1)
	require.NotEqual(t, string(raw), edited)
	require.NoError(t, os.WriteFile(file, []byte(edited), 0o600))

	got, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.False(t, got.RequiresApproval)
	assert.Nil(t, got.Approval, "the requirement a person approved under is gone: so is the approval")
}
