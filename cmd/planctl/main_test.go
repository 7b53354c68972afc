package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/document"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type result struct {
	code           int
	stdout, stderr string
}

func planctl(t *testing.T, args ...string) result {
	t.Helper()
	return planctlWithInput(t, "", args...)
}

func planctlWithInput(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := (&cli{ctx: context.Background(), stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr}).run(args)
	return result{code, stdout.String(), stderr.String()}
}

const shipBody = "# Ship 2.0\n- [x] Freeze\n- [~] Test\n- [ ] Tag\n- [-] Blog post\n"

// newDir returns a plans folder holding plan ship at revision 1, written from a file.
func newDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plans")
	file := filepath.Join(t.TempDir(), "ship.md")
	require.NoError(t, os.WriteFile(file, []byte(shipBody), 0o600))
	r := planctlOK(t, "-dir", dir, "import", "ship", file)
	assert.Equal(t, "ship: created from "+file+", revision 1, [#####-----] 2/4\n", r.stdout)
	return dir
}

func TestImportShowsUpAsFileInDir(t *testing.T) {
	dir := newDir(t)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	assert.Equal(t, []string{"ship.md"}, names, "ls DIR shows the plan files")
	raw, err := os.ReadFile(filepath.Join(dir, "ship.md"))
	require.NoError(t, err)
	p, err := document.DecodePlan("ship", string(raw))
	require.NoError(t, err)
	assert.Equal(t, shipBody, p.Content)
	assert.Equal(t, "Ship 2.0", p.Title)
	assert.Equal(t, "planctl", p.Author)
}

func TestList(t *testing.T) {
	dir := newDir(t)
	r := planctlOK(t, "list", "-dir", dir)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, lines, 2)
	assert.Regexp(t, `^NAME\s+TITLE\s+STATUS\s+PROGRESS\s+REV\s+APPROVED\s+UPDATED$`, lines[0])
	assert.Regexp(t, `^ship\s+Ship 2\.0\s+draft\s+\[#####-----\] 2/4\s+1\s+no\s+\d{4}-\d\d-\d\d \d\d:\d\d$`, lines[1])
	assert.Empty(t, r.stderr)
}

func TestShow(t *testing.T) {
	dir := newDir(t)
	r := planctlOK(t, "--dir="+dir, "show", "ship")
	for _, want := range []string{
		"ship: Ship 2.0\n", "status:   draft\n", "revision: 1\n", "author:   planctl\n", "updated:  ",
		"progress: [#####-----] 2/4 (50%), next: step 3, Tag\n",
		"\n\n" + shipBody,
	} {
		assert.Contains(t, r.stdout, want)
	}
	assert.NotContains(t, r.stdout, "\x1b[", "no colours when stdout is not a terminal")
}

func TestStatusGuarded(t *testing.T) {
	dir := newDir(t)
	r := planctlOK(t, "-dir", dir, "status", "ship", "in-progress", "-rev", "1")
	assert.Equal(t, "ship: status in-progress, revision 2\n", r.stdout)

	r = planctl(t, "-dir", dir, "status", "ship", "done", "--rev", "1")
	assert.Equal(t, exitConflict, r.code)
	assert.Empty(t, r.stdout)
	assert.Equal(t, "planctl: revision_conflict: ship is at revision 2, not 1; nothing was changed. "+
		"Check it with `planctl show ship` and retry with -rev 2\n", r.stderr)
	assert.Contains(t, planctl(t, "-dir", dir, "show", "ship").stdout, "status:   in-progress\n")

	r = planctlOK(t, "-dir", dir, "status", "ship", "done")
	assert.Equal(t, "ship: status done, revision 3\n", r.stdout)
}

// A person exports a plan, edits it, and imports it guarded by the revision exported, but an
// agent changed the plan meanwhile: the import is refused and the agent's change is kept.
func TestImportLosesRace(t *testing.T) {
	dir := newDir(t)
	file := filepath.Join(t.TempDir(), "edit.md")
	r := planctlOK(t, "-dir", dir, "export", "ship", file)
	assert.Equal(t, "ship: revision 1 written to "+file+" (61 bytes); import it with -rev 1 to keep changes made meanwhile\n", r.stdout)
	exported, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, shipBody, string(exported))

	// The agent's process marks a step through its own backend on the same folder.
	backend, err := plan.NewLocalBackend(filepath.Dir(dir))
	require.NoError(t, err)
	defer backend.Close()
	agent, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	ctx := context.Background()
	_, _, err = agent.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 2, State: plan.StepCompleted})
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(shipBody, "Tag", "Tag v2.0.0", 1)), 0o600))
	r = wantExit(t, exitConflict, "planctl: revision_conflict: ", "-dir", dir, "import", "ship", file, "-rev", "1")
	assert.Contains(t, r.stderr, "retry with -rev 2")
	p, err := agent.Get(ctx, "ship")
	require.NoError(t, err)
	assert.EqualValues(t, 2, p.Revision)
	assert.Contains(t, p.Content, "- [x] Test", "the agent's change survives")

	r = planctlOK(t, "-dir", dir, "import", "ship", file, "-rev", "2")
	assert.Equal(t, "ship: updated from "+file+", revision 3, [#####-----] 2/4\n", r.stdout)
}

func TestImportFromStdinAndCreateOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	r := planctlWithInput(t, "- [ ] one\n", "-dir", dir, "import", "todo", "-", "-rev", "0")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "todo: created from -, revision 1, [----------] 0/1\n", r.stdout)
	r = planctlWithInput(t, "- [ ] two\n", "-dir", dir, "import", "todo", "-", "-rev", "0")
	assert.Equal(t, exitConflict, r.code)
	assert.Equal(t, "planctl: revision_conflict: todo already exists, at revision 1; nothing was changed. "+
		"See it with `planctl show todo`, or replace it with -rev 1\n", r.stderr)
	r = planctlOK(t, "-dir", dir, "export", "todo", "-")
	assert.Equal(t, "- [ ] one\n", r.stdout)
}

func TestRemove(t *testing.T) {
	dir := newDir(t)
	wantExit(t, exitConflict, "revision_conflict", "-dir", dir, "rm", "ship", "-rev", "7")
	r := planctlOK(t, "-dir", dir, "rm", "ship", "-rev", "1")
	assert.Equal(t, "ship: removed at revision 1\n", r.stdout)
	wantExit(t, exitNotFound, "planctl: not_found: ", "-dir", dir, "show", "ship")
	assert.Equal(t, exitNotFound, planctl(t, "-dir", dir, "rm", "ship").code)
	assert.Contains(t, planctl(t, "-dir", dir, "list").stdout, "No plans in "+dir)
}

func TestCorruptFileIsListedWithWarning(t *testing.T) {
	dir := newDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.md"), []byte("not a plan\n"), 0o600))
	r := planctl(t, "-dir", dir, "list")
	require.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "ship ")
	assert.NotContains(t, r.stdout, "bad")
	assert.Equal(t, "planctl: warning: plan bad cannot be read (corrupt): its file is not in the plan format; `planctl rm bad` removes it\n", r.stderr)

	r = planctl(t, "-dir", dir, "show", "bad")
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "planctl: corrupt: bad cannot be read: its file is not in the plan format. "+
		"Fix the file, or remove it with `planctl rm bad` (without -rev)\n", r.stderr)

	r = planctlOK(t, "-dir", dir, "rm", "bad")
	assert.Equal(t, "bad: removed\n", r.stdout)
	assert.Empty(t, planctl(t, "-dir", dir, "list").stderr)
}

func TestJSON(t *testing.T) {
	dir := newDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.md"), []byte("---\nrevision: x\n---\n"), 0o600))
	r := planctlOK(t, "-dir", dir, "list", "-json")
	var listing plan.Listing
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &listing))
	require.Len(t, listing.Plans, 1)
	assert.Equal(t, "ship", listing.Plans[0].Name)
	assert.EqualValues(t, 1, listing.Plans[0].Revision)
	assert.Equal(t, api.Progress{Total: 4, Pending: 1, InProgress: 1, Completed: 1, Skipped: 1, Percent: 50}, listing.Plans[0].Progress)
	require.Len(t, listing.Warnings, 1)
	assert.Equal(t, plan.CodeCorrupt, listing.Warnings[0].Code)

	r = planctlOK(t, "-dir", dir, "show", "ship", "--json")
	var shown struct {
		plan.Plan
		Progress    api.Progress `json:"progress"`
		CurrentStep *plan.Step   `json:"current_step"`
		Steps       []plan.Step  `json:"steps"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &shown))
	assert.Equal(t, "ship", shown.Name)
	assert.Equal(t, shipBody, shown.Content)
	assert.Equal(t, 50, shown.Progress.Percent)
	require.NotNil(t, shown.CurrentStep)
	assert.Equal(t, 2, shown.CurrentStep.Number)
	require.Len(t, shown.Steps, 4)
	assert.Equal(t, plan.StepSkipped, shown.Steps[3].State)
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"show"},
		{"status", "ship"},
		{"rm", "a", "b"},
		{"status", "ship", "done", "-json"},
		{"list", "-rev", "3"},
		{"rm", "ship", "-rev", "-1"},
		{"rm", "ship", "-rev", "x"},
		{"list", "-nope"},
	} {
		r := planctl(t, append([]string{"-dir", dir}, args...)...)
		assert.Equal(t, exitUsage, r.code, "%v", args)
		assert.Contains(t, r.stderr, "Usage: planctl", "%v", args)
		assert.Empty(t, r.stdout, "%v", args)
	}
	r := planctl(t, "-h")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "Exit status: 0 done")
	assert.Equal(t, r.stdout, planctl(t, "help").stdout)
}

func TestInvalidName(t *testing.T) {
	r := planctlWithInput(t, "- [ ] x\n", "-dir", t.TempDir(), "import", "Bad Name", "-")
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "planctl: invalid_argument: \"Bad Name\" is not a plan name: use lowercase letters, digits, '-' and '_', "+
		"starting with a letter or digit, at most 64 bytes\n", r.stderr)
}

// A read-only command on a folder that does not exist fails naming it, and creates nothing.
func TestReadOnlyCommandsReportAMissingDirAndCreateNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nowhere")
	for _, args := range [][]string{{"list"}, {"show", "x"}, {"log", "x"}, {"diff", "x"}, {"export", "x", "-"}, {"watch"}, {"check"}} {
		r := planctl(t, append([]string{"-dir", dir}, args...)...)
		assert.Equal(t, exitFailed, r.code, "%v", args)
		assert.Equal(t, "planctl: "+dir+" does not exist: no plans there, and nothing was created; check -dir (default $PLAN_DIR, else ./.plans)\n",
			r.stderr, "%v", args)
		assert.Empty(t, r.stdout, "%v", args)
		_, err := os.Stat(dir)
		assert.True(t, os.IsNotExist(err), "%v created %s", args, dir)
	}
}

func TestDirFromEnvironment(t *testing.T) {
	dir := newDir(t)
	t.Setenv("PLAN_DIR", dir)
	r := planctlOK(t, "list")
	assert.Contains(t, r.stdout, "ship ")
}

func TestRunWritesToGivenWriters(t *testing.T) {
	dir := newDir(t)
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"-dir", dir, "export", "ship", "-"}, &stdout, &stderr))
	assert.Equal(t, shipBody, stdout.String())
	assert.Equal(t, exitNotFound, run([]string{"-dir", dir, "show", "nope"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "not_found")
}

func TestRenderBody(t *testing.T) {
	body := "# T\r\n- [x] done\n- [~] doing\n- [!] broke \x1b[2J\n- [ ] todo\n"
	steps := plan.ParseSteps(body)
	plain := renderBody(body, steps, false)
	assert.Equal(t, "# T\n- [x] done\n- [~] doing\n- [!] broke ?[2J\n- [ ] todo\n", plain)
	colored := renderBody(body, steps, true)
	assert.Contains(t, colored, "\x1b[32m- [x] done\x1b[0m\n")
	assert.Contains(t, colored, "\x1b[33m- [~] doing\x1b[0m\n")
	assert.Contains(t, colored, "\x1b[31m- [!] broke ?[2J\x1b[0m\n")
	assert.Contains(t, colored, "\n- [ ] todo\n")
	assert.False(t, isTerminal(&bytes.Buffer{}))
	assert.Equal(t, "a b c", oneLine("a\tb\nc"))
	assert.Equal(t, "abc…", clip("abcdef", 4))
}

// TestListPages: -limit and -after walk the plans a page at a time, -status filters.
func TestListPages(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a1", "a2", "a3", "b1"} {
		status := "draft"
		if name == "b1" {
			status = "done"
		}
		r := planctlWithInput(t, "- [ ] x\n", "-dir", dir, "import", name, "-")
		require.Equal(t, 0, r.code, r.stderr)
		if status == "done" {
			require.Equal(t, 0, planctl(t, "-dir", dir, "status", name, "done").code)
		}
	}
	r := planctlOK(t, "-dir", dir, "list", "-limit", "2")
	assert.Contains(t, r.stdout, "a1")
	assert.Contains(t, r.stdout, "a2")
	assert.NotContains(t, r.stdout, "a3")
	assert.Contains(t, r.stdout, "2 of 4 plans shown; next page: planctl list -after a2 -limit 2")
	r = planctl(t, "-dir", dir, "list", "-limit", "2", "-after", "a2")
	assert.Contains(t, r.stdout, "a3")
	assert.Contains(t, r.stdout, "b1")
	assert.NotContains(t, r.stdout, "next page")
	r = planctl(t, "-dir", dir, "list", "-status", "done")
	assert.Contains(t, r.stdout, "b1")
	assert.NotContains(t, r.stdout, "a1")
	assert.Equal(t, 2, planctl(t, "-dir", dir, "show", "a1", "-limit", "2").code)
}

// wantExit runs planctl with args and checks that it exits with code and that its stderr
// contains msg.
func wantExit(t *testing.T, code int, msg string, args ...string) result {
	t.Helper()
	r := planctl(t, args...)
	assert.Equal(t, code, r.code, r.stderr)
	assert.Contains(t, r.stderr, msg)
	return r
}

// planctlOK runs planctl with args and requires that it succeeds.
func planctlOK(t *testing.T, args ...string) result {
	t.Helper()
	r := planctl(t, args...)
	require.Equal(t, exitOK, r.code, r.stderr)
	return r
}

// planctl speaks to people in its own vocabulary: flags and commands they can type, never
// the tool names and arguments that the library's messages give models.
func TestMessagesSpeakPlanctl(t *testing.T) {
	dir := newDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.md"), []byte("not a plan\n"), 0o600))
	empty := filepath.Join(t.TempDir(), "empty.md")
	require.NoError(t, os.WriteFile(empty, []byte(" \n"), 0o600))
	cyclic := filepath.Join(t.TempDir(), "cyclic.md")
	require.NoError(t, os.WriteFile(cyclic, []byte("# Loop\n- [ ] A (after 2)\n- [ ] B (after 1)\n"), 0o600))
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
		{[]string{"import", "loop", cyclic}, exitFailed, "the steps of loop would wait for each other in a cycle (steps 1, 2)"},
		{[]string{"approve", "ship", "-rev", "5", "-by", "a"}, exitConflict, "`planctl show ship` and approve with -rev 1"},
		{[]string{"approve", "nope", "-rev", "1", "-by", "a"}, exitNotFound, "no plan named nope"},
		{[]string{"diff", "ship", "1", "4"}, exitNotFound, "ship has no revision 4 yet"},
		{[]string{"log", "bad"}, exitFailed, "`planctl rm bad` (without -rev)"},
		{[]string{"take", "ship", "7", "-to", "w"}, exitFailed, "ship has no step 7"},
		{[]string{"take", "ship", "1", "-to", "w"}, exitFailed, "step 1 of ship is completed"},
		{[]string{"revoke", "nope"}, exitNotFound, "no plan named nope"},
	}
	for _, c := range cases {
		r := planctl(t, append([]string{"-dir", dir}, c.args...)...)
		assert.Equal(t, c.code, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.want, "%v", c.args)
		for _, word := range []string{"list_plans", "read_plan", "write_plan", "delete_plan", "update_plan_step", "last_known_revision", "call ", "since_revision"} {
			assert.NotContains(t, r.stderr, word, "%v", c.args)
		}
	}
}

// Given the folder above the plans folder, planctl says where the plans are.
func TestWrongDirSuggestsPlansFolder(t *testing.T) {
	dir := newDir(t)
	root := filepath.Dir(dir)
	wantPlansFolderSuggested(t, dir, "list")
	r := planctl(t, "-dir", root, "show", "ship")
	assert.Equal(t, exitNotFound, r.code)
	assert.Equal(t, "planctl: not_found: no plan named ship in "+root+", but its plans folder has one: use -dir "+dir+"\n", r.stderr)
	r = planctl(t, "-dir", t.TempDir(), "list")
	assert.Equal(t, exitOK, r.code, "an empty folder with no plans folder is just empty")
}

// Refusals that no planctl command meets today still read in planctl's words, should one do.
func TestDescribeStepHeldAndNotApproved(t *testing.T) {
	c := &cli{command: "status", args: []string{"ship", "done"}}
	msg, exit := c.describe(&plan.Error{Code: plan.CodeStepHeld, Reason: "step_held", Name: "ship", Step: 3, Agent: "worker-1"})
	assert.Equal(t, exitFailed, exit)
	assert.Equal(t, "step 3 of ship is held by worker-1; `planctl take ship 3 -to WHO` hands it over, `planctl take ship 3` releases it", msg)
	msg, exit = c.describe(&plan.Error{Code: plan.CodeNotApproved, Reason: "not_approved", Name: "ship"})
	assert.Equal(t, exitFailed, exit)
	assert.Equal(t, "ship is not approved; review it with `planctl show ship`, then `planctl approve ship -rev N`", msg)
}

// wantPlansFolderSuggested runs planctl with args on the folder holding dir, the plans
// folder, and checks that it fails saying to use -dir dir.
func wantPlansFolderSuggested(t *testing.T, dir string, args ...string) {
	t.Helper()
	root := filepath.Dir(dir)
	r := planctl(t, append([]string{"-dir", root}, args...)...)
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "planctl: "+root+" holds no plans, but its plans folder holds 1 plan: use -dir "+dir+"\n", r.stderr)
	assert.Empty(t, r.stdout)
}
