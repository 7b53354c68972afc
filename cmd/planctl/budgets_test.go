package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// runBuilt runs the planctl binary built from this package as USER=ana, and returns its
// exit status and output.
func runBuilt(t *testing.T, args ...string) result {
	t.Helper()
	return runBuiltWith(t, nil, args...)
}

// runBuiltWith is runBuilt with the variables env sets ("LANG=zh_CN.UTF-8") added to the
// environment.
func runBuiltWith(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(planctlBinary(t), args...)
	cmd.Env = append(append(os.Environ(), "USER=ana", "NO_COLOR=1"), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{code, stdout.String(), stderr.String()}
}

// A person raises one step's budget from planctl, and the plan stays approved: no new
// approval of the body. A step number that is not one is a usage error.
func TestBudgetRaisesAStepsBudgetAndKeepsTheApproval(t *testing.T) {
	dir, store := proofDir(t, "# Ship\n- [ ] Build (budget 1k tokens) (uses deploy)\n- [ ] Ship\n")
	ctx := context.Background()
	_, err := store.Approve(ctx, "ship", 1, "alice")
	require.NoError(t, err)
	_, _, err = store.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 1, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)

	r := runBuilt(t, "-dir", dir, "budget", "ship", "1", "20k tokens")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "ship: step 1 (Build (uses deploy) (budget 20k tokens)) budget 20k tokens, revision 4, still approved\n", r.stdout)
	p, err := store.Get(ctx, "ship")
	require.NoError(t, err)
	require.NotNil(t, p.Approval)
	s := plan.ParseSteps(p.Content)[0]
	assert.Equal(t, "w1", s.Holder, "the hold stays")
	assert.Equal(t, int64(20000), s.Budget.Tokens)

	wantExit(t, exitUsage, "x is not a step number", "-dir", dir, "budget", "ship", "x", "1h")
	wantExit(t, exitFailed, "ship has no step 9", "-dir", dir, "budget", "ship", "9", "1h")
	wantExit(t, exitUsage, "plenty is not a budget", "-dir", dir, "budget", "ship", "1", "plenty")
	wantExit(t, exitUsage, "budget NAME [STEP] BUDGET", "-dir", dir, "budget", "ship")
}

// A plan, or a step, whose recorded cost went over its budget says so in show, list and
// watch, with the command that raises it.
func TestWhatIsOverBudgetShowsInShowListAndWatch(t *testing.T) {
	dir, _ := proofDir(t, "# Ship\n- [x] Build (budget 1k tokens) (@w1) — cost: 2000+100 tokens, 2 calls, 3 tools, 40s\n- [ ] Ship\n")
	r := planctlOK(t, "-dir", dir, "show", "ship")
	assert.Contains(t, r.stdout, "over:     step 1 (1k tokens) over budget; `planctl budget ship [STEP] BUDGET` raises it\n")

	r = planctlOK(t, "-dir", dir, "list")
	assert.Regexp(t, `ship\s+Ship\s+draft\s+\[#####-----\] 1/2, over budget\s+1\s+no\s`, r.stdout)

	planctlOK(t, "-dir", dir, "budget", "ship", "2k tokens")
	r = planctlOK(t, "-dir", dir, "show", "ship")
	assert.Contains(t, r.stdout, "over:     the plan (2k tokens); step 1 (1k tokens) over budget;")
	r = planctlOK(t, "-dir", dir, "show", "ship", "-json")
	assert.Contains(t, r.stdout, `"over_budget": true`)

	var out lockedBuffer
	stop := watching(t, &out, "-dir", dir)
	waitFor(t, "watch", out.String, `ship: \[#####-----\] 1/2  50%, over budget, draft, revision 2`)
	stop()
}

// show -json prints the plan under the JSON names the API documents, never the Go names of
// the header's bookkeeping.
func TestShowJSONUsesTheDocumentedNames(t *testing.T) {
	dir, store := proofDir(t, "# Ship\n- [ ] Build\n")
	_, err := store.Approve(context.Background(), "ship", 1, "alice")
	require.NoError(t, err)
	r := runBuilt(t, "-dir", dir, "show", "ship", "-json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	for key := range got {
		assert.Equal(t, strings.ToLower(key), key, "a Go field name: %s", key)
	}
	for _, key := range []string{"name", "title", "status", "revision", "updated_at", "content", "approval", "progress", "steps"} {
		assert.Contains(t, got, key)
	}
}

// The holds an import takes are credited in log to the owners the tasks named, not to the
// person who imported them.
func TestImportPlantaskCreditsHoldsToTheirOwners(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	tasks := writeTasks(t, map[string]string{
		"1.json": `{"id":"1","subject":"Build","status":"in_progress","owner":"bob"}`,
		"2.json": `{"id":"2","subject":"Test","status":"pending","owner":"carol"}`,
	})
	r := runBuilt(t, "-dir", dir, "import-plantask", "ship", tasks)
	require.Equal(t, exitOK, r.code, r.stderr)
	r = runBuilt(t, "-dir", dir, "log", "ship")
	require.Equal(t, exitOK, r.code, r.stderr)
	got := lines(r.stdout)
	require.Len(t, got, 4, r.stdout)
	assert.Regexp(t, `^3\s.*\sstep\s+carol\s`, got[1])
	assert.Regexp(t, `^2\s.*\sstep\s+bob\s`, got[2])
	assert.Regexp(t, `^1\s.*\swrite\s+ana\s`, got[3])
}

// check reports an approved plan of 0.1.0 with steps left to do none of which names a tool
// in "(uses …)", and exits 5: under GatedTools every gated call of it would be refused. A
// plan that names one, or one of this release (whose person saw "(uses …)"), is not.
func TestCheckReportsApprovedPlansOf010WhoseStepsNameNoTools(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	for name, text := range map[string]string{"bare": "# Ship\n- [ ] Build\n", "named": "# Deploy\n- [ ] Deploy (uses deploy_prod)\n"} {
		file := filepath.Join(t.TempDir(), name+".md")
		require.NoError(t, os.WriteFile(file, []byte(text), 0o600))
		run010(t, dir, "import", name, file)
		run010(t, dir, "approve", name, "-rev", "1", "-by", "ana")
	}
	r := runBuilt(t, "-dir", dir, "check")
	assert.Equal(t, exitPending, r.code, r.stderr)
	assert.Contains(t, r.stdout, "bare r2: approved, but no step names a tool it may use in (uses …), as plans written before (uses …) existed do not: "+
		"under Config.GatedTools every gated call of it is refused; add (uses TOOL) to the steps that need one "+
		"(`planctl export bare -`, `planctl import bare FILE`) and approve it again\n")
	assert.NotContains(t, r.stdout, "named r2: approved")
	r = runBuilt(t, "-dir", dir, "check", "-json")
	assert.Equal(t, 1, strings.Count(r.stdout, `"names_no_tools": true`), r.stdout)

	here, store := proofDir(t, "# Ship\n- [ ] Build\n")
	_, err := store.Approve(context.Background(), "ship", 1, "alice")
	require.NoError(t, err)
	r = runBuilt(t, "-dir", here, "check")
	assert.Equal(t, exitOK, r.code, r.stdout)
}
