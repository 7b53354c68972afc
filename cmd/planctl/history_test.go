package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// agentStore is the Store of an agent's process on the plans folder dir, as a program using
// plan.NewLocalBackend(ROOT) with the default BaseDir has it.
func agentStore(t *testing.T, dir, author string) *plan.Store {
	t.Helper()
	backend, err := plan.NewLocalBackend(filepath.Dir(dir))
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	s, err := plan.NewStore(&plan.StoreConfig{Backend: backend, DefaultAuthor: author})
	require.NoError(t, err)
	return s
}

// lines splits output into its lines.
func lines(out string) []string { return strings.Split(strings.TrimSuffix(out, "\n"), "\n") }

// historyEntry is the path of the one kept entry of revision rev of plan ship in dir.
func historyEntry(t *testing.T, dir, rev string) string {
	t.Helper()
	entries, err := filepath.Glob(filepath.Join(dir, ".history", "ship", rev+".*"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	return entries[0]
}

// wantLogEnd checks that planctl log ship in dir prints n lines: revision rev last, then
// note.
func wantLogEnd(t *testing.T, dir string, n int, rev, note string) {
	t.Helper()
	r := planctlOK(t, "-dir", dir, "log", "ship")
	got := lines(r.stdout)
	require.Len(t, got, n, r.stdout)
	assert.Regexp(t, `^`+rev+`\s`, got[n-2])
	assert.Equal(t, note, got[n-1])
}

// diffNotFound runs planctl diff ship from 3 in dir and checks that it fails with not_found
// and prints nothing on stdout.
func diffNotFound(t *testing.T, dir, from string) result {
	t.Helper()
	r := planctl(t, "-dir", dir, "diff", "ship", from, "3")
	assert.Equal(t, exitNotFound, r.code)
	assert.Empty(t, r.stdout)
	return r
}

// shipAtRev3 is newDir's plan after a person set its status (revision 2) and worker-1
// completed step 2 (revision 3).
func shipAtRev3(t *testing.T) (string, *plan.Store) {
	t.Helper()
	dir := newDir(t)
	t.Setenv("USER", "ana") // planctl acts as the person at the terminal
	require.Equal(t, exitOK, planctl(t, "-dir", dir, "status", "ship", "in-progress").code)
	agent := agentStore(t, dir, "worker")
	_, _, err := agent.MoveStep(context.Background(), plan.StepMove{Name: "ship", Step: 2, State: plan.StepCompleted, By: "worker-1"})
	require.NoError(t, err)
	return dir, agent
}

func TestLog(t *testing.T) {
	dir, _ := shipAtRev3(t)
	r := planctlOK(t, "-dir", dir, "log", "ship")
	assert.Empty(t, r.stderr)
	got := lines(r.stdout)
	require.Len(t, got, 4, r.stdout)
	assert.Regexp(t, `^REV\s+TIME\s+ACTION\s+BY\s+STATUS$`, got[0])
	const when = `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`
	assert.Regexp(t, `^3\s+`+when+`\s+step\s+worker-1\s+in-progress$`, got[1])
	assert.Regexp(t, `^2\s+`+when+`\s+status\s+ana\s+in-progress$`, got[2])
	assert.Regexp(t, `^1\s+`+when+`\s+write\s+planctl\s+draft$`, got[3])

	r = planctlOK(t, "-dir", dir, "log", "ship", "-json")
	var revs []plan.Revision
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &revs))
	require.Len(t, revs, 3)
	for i, want := range []plan.Action{plan.ActionStep, plan.ActionStatus, plan.ActionWrite} {
		assert.EqualValues(t, 3-i, revs[i].Revision)
		assert.Equal(t, want, revs[i].Action)
	}

	wantExit(t, exitNotFound, "planctl: not_found: no plan named nope", "-dir", dir, "log", "nope")
}

// A revision the history no longer holds is left out of log, said so, and refused by diff.
func TestLogAndDiffOfARevisionNoLongerKept(t *testing.T) {
	dir, _ := shipAtRev3(t)
	require.NoError(t, os.Remove(historyEntry(t, dir, "1")))

	wantLogEnd(t, dir, 4, "2", "revisions before 2 are no longer kept")
	r := diffNotFound(t, dir, "1")
	assert.Equal(t, "planctl: not_found: revision 1 of ship is no longer kept (it is at revision 3); "+
		"`planctl log ship` lists the kept revisions\n", r.stderr)
}

func TestDiff(t *testing.T) {
	dir, _ := shipAtRev3(t)
	// Defaults: the revision before the current one, to the current one.
	r := planctlOK(t, "-dir", dir, "diff", "ship")
	assert.Equal(t, "--- ship@2\n+++ ship@3\n@@ -1,5 +1,5 @@\n # Ship 2.0\n - [x] Freeze\n-- [~] Test\n+- [x] Test\n - [ ] Tag\n - [-] Blog post\n", r.stdout)
	assert.NotContains(t, r.stdout, "\x1b[", "no colours when stdout is not a terminal")

	r = planctlOK(t, "-dir", dir, "diff", "ship", "1")
	assert.True(t, strings.HasPrefix(r.stdout, "status: \"draft\" -> \"in-progress\"\n--- ship@1\n+++ ship@3\n"), r.stdout)

	r = planctlOK(t, "-dir", dir, "diff", "ship", "1", "2")
	assert.Equal(t, "status: \"draft\" -> \"in-progress\"\n", r.stdout)

	r = planctlOK(t, "-dir", dir, "diff", "ship", "3", "1")
	assert.Contains(t, r.stdout, "status: \"in-progress\" -> \"draft\"\n--- ship@3\n+++ ship@1\n")

	r = planctlOK(t, "-dir", dir, "diff", "ship", "2", "2")
	assert.Equal(t, "ship: revisions 2 and 2 have the same title, status, author and body\n", r.stdout)

	r = planctl(t, "-dir", dir, "diff", "ship", "9")
	assert.Equal(t, exitNotFound, r.code)
	assert.Equal(t, "planctl: not_found: ship has no revision 9 yet: it is at revision 3\n", r.stderr)

	for _, bad := range []string{"0", "x", "1.5"} {
		r = planctl(t, "-dir", dir, "diff", "ship", "1", bad)
		assert.Equal(t, exitUsage, r.code, bad)
		assert.Contains(t, r.stderr, "is not a revision: give a revision number, as `planctl log ship` lists them", bad)
	}
	wantExit(t, exitUsage, "diff takes 1 to 3 arguments: planctl diff NAME [FROM [TO]]", "-dir", dir, "diff", "ship", "1", "2", "3")
}

func TestDiffOfAFirstRevision(t *testing.T) {
	dir := newDir(t)
	r := planctl(t, "-dir", dir, "diff", "ship")
	assert.Equal(t, exitFailed, r.code)
	assert.Equal(t, "planctl: ship has no revision before revision 1 to compare with; `planctl show ship` prints it\n", r.stderr)
	assert.Equal(t, exitNotFound, planctl(t, "-dir", dir, "diff", "nope").code)
}

func TestRenderDiff(t *testing.T) {
	diff := "status: \"a\" -> \"b\"\n--- p@1\n+++ p@2\n@@ -1,2 +1,2 @@\n keep\n--- gone \x1b[2J\n+++ new\n"
	assert.Equal(t, "status: \"a\" -> \"b\"\n--- p@1\n+++ p@2\n@@ -1,2 +1,2 @@\n keep\n--- gone ?[2J\n+++ new\n", renderDiff(diff, false))
	colored := renderDiff(diff, true)
	assert.Contains(t, colored, "status: \"a\" -> \"b\"\n\x1b[1m--- p@1\x1b[0m\n\x1b[1m+++ p@2\x1b[0m\n\x1b[36m@@ -1,2 +1,2 @@\x1b[0m\n keep\n")
	assert.Contains(t, colored, "\n\x1b[31m--- gone ?[2J\x1b[0m\n\x1b[32m+++ new\x1b[0m\n", "body lines after the first hunk are body lines")
}

// A kept revision whose entry does not match the SHA-256 that names it (forged, swapped or
// cut short) is left out of log, said so, and refused by diff with the reason.
func TestLogAndDiffOfARevisionThatCannotBeVerified(t *testing.T) {
	dir, _ := shipAtRev3(t)
	entry := historyEntry(t, dir, "2")
	raw, err := os.ReadFile(entry)
	require.NoError(t, err)
	forged := strings.Replace(string(raw), "- [ ] Tag", "- [x] Tag", 1)
	require.NotEqual(t, string(raw), forged)
	require.NoError(t, os.WriteFile(entry, []byte(forged), 0o644))

	wantLogEnd(t, dir, 3, "3", "revisions before 3 are kept but cannot be verified, so they are not shown")
	r := diffNotFound(t, dir, "2")
	assert.Contains(t, r.stderr, "revision 2 of ship")
	assert.Contains(t, r.stderr, "does not match the SHA-256")
}

// With $USER unset (a container, cron), planctl's changes still name who made them,
// "planctl": a change that names nobody would not fence the agents.
func TestPlanctlNamesItselfWhenUserIsUnset(t *testing.T) {
	t.Setenv("USER", "")
	dir := newDir(t)
	backend, err := plan.NewLocalBackend(filepath.Dir(dir))
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	planctlOK(t, "-dir", dir, "status", "ship", "active", "-rev", "1")
	revs, err := store.History(context.Background(), "ship")
	require.NoError(t, err)
	require.Len(t, revs, 2)
	for _, rev := range revs {
		assert.Equal(t, "planctl", rev.Author, "revision %d", rev.Revision)
	}
}

// A plan whose file was put back by hand to an older revision is explained to a person, in
// their language, with what to run: show refuses it, list warns of it.
func TestAPlanPutBackByHandIsExplainedToAPerson(t *testing.T) {
	dir, store := proofDir(t, "# Ship\n- [ ] Build\n")
	ctx := context.Background()
	old, err := os.ReadFile(filepath.Join(dir, "ship.md"))
	require.NoError(t, err)
	for _, body := range []string{"# Ship\n- [ ] Build\n- [ ] Test\n", "# Ship\n- [ ] Build\n- [ ] Test\n- [ ] Ship\n"} {
		_, err = store.Put(ctx, plan.Update{Name: "ship", Content: &body})
		require.NoError(t, err)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ship.md"), old, 0o600))
	for _, lc := range []struct{ env, show, list string }{
		{"LANG=C.UTF-8", "an old copy put back by hand", "put back by hand"},
		{"LANG=zh_CN.UTF-8", "有人手动放回了旧副本", "被手动放回"},
	} {
		r := runBuiltWith(t, []string{lc.env}, "-dir", dir, "show", "ship")
		assert.Equal(t, exitFailed, r.code, r.stderr)
		assert.Contains(t, r.stderr, lc.show)
		assert.Contains(t, r.stderr, "planctl rm ship")
		r = runBuiltWith(t, []string{lc.env}, "-dir", dir, "list")
		assert.Contains(t, r.stderr, lc.list)
	}
}
