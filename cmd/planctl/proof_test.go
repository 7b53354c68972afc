package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// proofDir is a plans folder holding plan ship with step 2 completed with evidence by w1.
func proofDir(t *testing.T, body string) (string, *plan.Store) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "plans")
	backend, err := plan.NewLocalBackend(root)
	require.NoError(t, err)
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = store.Put(context.Background(), plan.Update{Name: "ship", Content: &body})
	require.NoError(t, err)
	return dir, store
}

func TestShowHasTheEvidenceOfEachStep(t *testing.T) {
	dir, store := proofDir(t, "# Ship\n- [ ] Freeze\n- [ ] Test\n")
	ctx := context.Background()
	_, _, err := store.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 2, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)
	_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 2, State: plan.StepCompleted, By: "w1", Evidence: "go test ./... exit 0, 212 passed"})
	require.NoError(t, err)

	r := planctlOK(t, "-dir", dir, "show", "ship")
	assert.Contains(t, r.stdout, "Test (@w1) — evidence: go test ./... exit 0, 212 passed")

	r = planctlOK(t, "-dir", dir, "show", "ship", "-json")
	var out struct {
		Steps []plan.Step `json:"steps"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.Len(t, out.Steps, 2)
	assert.Equal(t, "go test ./... exit 0, 212 passed", out.Steps[1].Evidence)
}

func TestCompleteFinishesAReviewAndShowListsWhatAwaitsReview(t *testing.T) {
	dir, _ := proofDir(t, "# Ship\n- [x] Freeze\n- [~] Publish (review) — evidence: v2 is out (done by @w1, awaiting review)\n")
	r := planctlOK(t, "-dir", dir, "show", "ship")
	assert.Contains(t, r.stdout, "review:   step 2, done by w1\n")

	r = planctlOK(t, "-dir", dir, "complete", "ship", "2", "-by", "alice")
	assert.Equal(t, "ship: step 2 (Publish (review) — evidence: v2 is out (reviewed by @alice)) completed by alice; revision 2\n", r.stdout)
	r = planctlOK(t, "-dir", dir, "show", "ship", "-json")
	var out struct {
		Steps []plan.Step `json:"steps"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	assert.Equal(t, plan.StepCompleted, out.Steps[1].State)
	assert.Equal(t, "v2 is out", out.Steps[1].Evidence)

	r = planctl(t, "-dir", dir, "complete", "ship", "x")
	assert.Equal(t, exitUsage, r.code)
}

func TestShowHasWhatEachStepAndThePlanCost(t *testing.T) {
	dir, _ := proofDir(t, "# Ship\n- [x] Build (@w1) — cost: 2000+100 tokens, 2 calls, 3 tools, 40s — evidence: ok\n- [x] Test (@w2) — cost: 3 calls (3 without usage), 1 tool, 20s\n- [ ] Ship\n")
	r := planctlOK(t, "-dir", dir, "show", "ship")
	assert.Contains(t, r.stdout, "cost:     2000+100 tokens, 5 calls (3 without usage), 4 tools, 60s (steps 1, 2)\n")
	assert.Contains(t, r.stdout, "Test (@w2) — cost: 3 calls (3 without usage), 1 tool, 20s")
	r = planctlOK(t, "-dir", dir, "show", "ship", "-json")
	var out struct {
		Steps []plan.Step `json:"steps"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	require.NotNil(t, out.Steps[0].Cost)
	assert.Equal(t, plan.StepCost{PromptTokens: 2000, CompletionTokens: 100, ModelCalls: 2, ToolCalls: 3, Seconds: 40}, *out.Steps[0].Cost)
}

func TestBudgetSetsWhatThePlanMayCostAndKeepsItsApproval(t *testing.T) {
	dir, store := proofDir(t, "# Ship\n- [ ] Build (budget 20k tokens)\n")
	ctx := context.Background()
	_, err := store.Approve(ctx, "ship", 1, "alice")
	require.NoError(t, err)
	r := planctlOK(t, "-dir", dir, "budget", "ship", "200k tokens, 1h")
	assert.Equal(t, "ship: budget 200k tokens, 1h, revision 3, still approved\n", r.stdout)
	p, err := store.Get(ctx, "ship")
	require.NoError(t, err)
	assert.NotNil(t, p.Approval, "a budget alone keeps the approval")
	r = planctl(t, "-dir", dir, "show", "ship")
	assert.Contains(t, r.stdout, "budget:   200k tokens, 1h\n")
	wantExit(t, exitUsage, `plenty is not a budget`, "-dir", dir, "budget", "ship", "plenty")
}
