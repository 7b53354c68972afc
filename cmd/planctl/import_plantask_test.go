package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// runAgent runs a real Eino agent with the given middlewares on a scripted model and returns
// the tool results the model was shown, in order.
func runAgent(t *testing.T, m *plantest.ScriptedModel, handlers ...adk.ChatModelAgentMiddleware) []string {
	t.Helper()
	ctx := context.Background()
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "worker", Description: "works", Instruction: "You work.", Model: m,
		Handlers: handlers, MaxIterations: 100,
	})
	require.NoError(t, err)
	return plantest.RunAgent(t, ctx, agent, "go")
}

// plantaskDescription is a description that would read as two more steps if it were
// written under its step as it is.
const plantaskDescription = "Tables for users and orders.\n\n- [ ] not a step of the plan\n1. [x] nor this"

// writePlantaskTasks has Eino's real plantask middleware, driven by a real agent, keep six
// tasks on backend in /tasks: 1 completed by alice (with metadata), 2 in progress by bob
// after 1, 3 pending after 2 (with an active form), 4 deleted, 5 owned by carol after 3 and
// 1, 6 claimed by dave and ready.
func writePlantaskTasks(t *testing.T, backend plantask.Backend) {
	t.Helper()
	mw, err := plantask.New(context.Background(), &plantask.Config{Backend: backend, BaseDir: "/tasks"})
	require.NoError(t, err)
	desc, err := json.Marshal(plantaskDescription)
	require.NoError(t, err)
	calls := []string{
		`TaskCreate {"subject":"Design the schema","description":` + string(desc) + `,"metadata":{"priority":"high","estimate":3}}`,
		`TaskCreate {"subject":"Write the migration","description":"Up and down.\nBoth reversible."}`,
		`TaskCreate {"subject":"Review","description":"By a second person.","activeForm":"Reviewing"}`,
		`TaskCreate {"subject":"Obsolete spike","description":"Not needed."}`,
		`TaskCreate {"subject":"Deploy","description":"After review."}`,
		`TaskCreate {"subject":"Write docs","description":"The upgrade notes."}`,
		`TaskUpdate {"taskId":"2","addBlockedBy":["1"]}`,
		`TaskUpdate {"taskId":"3","addBlockedBy":["2"]}`,
		`TaskUpdate {"taskId":"5","addBlockedBy":["3","1"]}`,
		`TaskUpdate {"taskId":"1","status":"completed","owner":"alice"}`,
		`TaskUpdate {"taskId":"2","status":"in_progress","owner":"bob"}`,
		`TaskUpdate {"taskId":"4","status":"deleted"}`,
		`TaskUpdate {"taskId":"5","owner":"carol"}`,
		`TaskUpdate {"taskId":"6","owner":"dave"}`,
	}
	var turns []plantest.Turn
	for _, c := range calls {
		name, args, _ := strings.Cut(c, " ")
		turns = append(turns, plantest.CallTool(name, args))
	}
	results := runAgent(t, plantest.NewScriptedModel(turns...), mw)
	require.Len(t, results, len(calls))
	for i, r := range results {
		require.Contains(t, r, `"result"`, "%s → %s", calls[i], r)
	}
}

// wantImported checks the plan the tasks of writePlantaskTasks became: one step per task
// left, in id order, each naming its task; dependencies as (after N) with step numbers;
// states; holds taken through the Store; descriptions, owners and metadata under their
// steps.
func wantImported(t *testing.T, p *plan.Plan) {
	t.Helper()
	steps := plan.ParseSteps(p.Content)
	type want struct {
		state  plan.StepState
		text   string
		after  []int
		holder string
	}
	var got []want
	for _, s := range steps {
		got = append(got, want{s.State, s.Text, s.After, s.Holder})
	}
	assert.Equal(t, []want{
		{plan.StepCompleted, "Design the schema [task 1]", nil, ""},
		{plan.StepInProgress, "Write the migration [task 2] (after 1) (@bob)", []int{1}, "bob"},
		{plan.StepPending, "Review [task 3] (after 2)", []int{2}, ""},
		{plan.StepPending, "Deploy [task 5] (after 1, 3)", []int{1, 3}, ""},
		{plan.StepInProgress, "Write docs [task 6] (@dave)", nil, "dave"},
	}, got, p.Content)
	for _, s := range []string{
		"  Tables for users and orders.\n",
		"  - [ ] not a step of the plan\n",
		"  owner: alice\n",
		`  metadata: {"estimate":3,"priority":"high"}` + "\n",
		"  Up and down.\n  Both reversible.\n",
		"  active form: Reviewing\n",
		"  owner: carol\n",
		"  The upgrade notes.\n",
	} {
		assert.Contains(t, p.Content, s)
	}
	assert.NotContains(t, p.Content, "Obsolete spike", "a deleted task is left out")
	assert.NotContains(t, p.Content, "owner: bob", "a hold says who owns it")
}

// A plantask store written by Eino's real middleware becomes one plan, with its
// dependencies, descriptions, ids and holds; the plan middleware's tools read it.
func TestImportPlantaskCarriesARealPlantaskStoreOver(t *testing.T) {
	root := t.TempDir()
	local, err := plan.NewLocalBackend(root)
	require.NoError(t, err)
	t.Cleanup(func() { local.Close() })
	writePlantaskTasks(t, local)
	_, err = os.Stat(filepath.Join(root, "tasks", "4.json"))
	require.ErrorIs(t, err, os.ErrNotExist, "plantask deleted task 4")

	plans, tasks := filepath.Join(root, "plans"), filepath.Join(root, "tasks")
	r := planctlOK(t, "-dir", plans, "import-plantask", "db", tasks)
	assert.Equal(t, "db: created from the 5 plantask tasks in "+tasks+", revision 3, [##--------] 1/5\n"+
		"  step 2 [task 2] held by bob\n"+
		"  step 5 [task 6] held by dave\n"+
		"  step 4 [task 5] stays pending, waiting for steps 1, 3; its owner carol is noted under it\n", r.stdout)

	store, err := plan.NewStore(&plan.StoreConfig{Backend: local})
	require.NoError(t, err)
	p, err := store.Get(context.Background(), "db")
	require.NoError(t, err)
	wantImported(t, p)
	assert.Equal(t, "Tasks from plantask", p.Title)

	mw, err := plan.New(context.Background(), &plan.Config{Backend: local})
	require.NoError(t, err)
	results := runAgent(t, plantest.NewScriptedModel(plantest.CallTool("read_plan", `{"name":"db"}`)), mw)
	require.Len(t, results, 1)
	assert.NotContains(t, results[0], `"error"`)
	assert.Contains(t, results[0], "Write the migration [task 2] (after 1) (@bob)")
	assert.Contains(t, results[0], "Up and down.")

	// The holds are the Store's: another agent is refused bob's step, bob finishes it.
	eve, err := plan.New(context.Background(), &plan.Config{Backend: local, AgentName: "eve"})
	require.NoError(t, err)
	results = runAgent(t, plantest.NewScriptedModel(plantest.CallTool("update_plan_step", `{"name":"db","step":2,"status":"completed"}`)), eve)
	require.Len(t, results, 1)
	assert.Contains(t, results[0], `"step_held"`)
	bob, err := plan.New(context.Background(), &plan.Config{Backend: local, AgentName: "bob"})
	require.NoError(t, err)
	results = runAgent(t, plantest.NewScriptedModel(plantest.CallTool("update_plan_step", `{"name":"db","step":2,"status":"completed"}`)), bob)
	require.Len(t, results, 1)
	assert.NotContains(t, results[0], `"error"`, results[0])
}

// An existing plan is replaced only when -rev names its revision.
func TestImportPlantaskReplacesAPlanOnlyAtTheRevisionGiven(t *testing.T) {
	root := t.TempDir()
	tasks := filepath.Join(root, "tasks")
	require.NoError(t, os.MkdirAll(tasks, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(tasks, "1.json"),
		[]byte(`{"id":"1","subject":"Only","description":"","status":"pending","blocks":[],"blockedBy":[]}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(tasks, ".highwatermark"), []byte("1"), 0o600))
	dir := newDir(t)

	r := planctl(t, "-dir", dir, "import-plantask", "ship", tasks)
	assert.Equal(t, exitConflict, r.code, r.stdout)
	assert.Contains(t, r.stderr, "ship already exists, at revision 1; nothing was changed")
	assert.Equal(t, exitConflict, planctl(t, "-dir", dir, "import-plantask", "ship", tasks, "-rev", "2").code)
	r = planctl(t, "-dir", dir, "show", "ship")
	assert.Contains(t, r.stdout, "Freeze", "the plan is as it was")

	r = planctlOK(t, "-dir", dir, "import-plantask", "ship", tasks, "-rev", "1")
	assert.Equal(t, "ship: updated from the 1 plantask tasks in "+tasks+", revision 2, [----------] 0/1\n", r.stdout)

	wantExit(t, exitFailed, filepath.Join(root, "plans-of-nobody")+" does not exist", "-dir", dir, "import-plantask", "empty", filepath.Join(root, "plans-of-nobody"))
}

// Whatever a task's subject and description hold, each task is exactly one step with the
// text, state and prerequisites it should have, and the Store accepts the body: a subject
// ending like "(after 2)" or like a holder's tag is neither, a description with a checklist
// or a fence of its own adds no step.
func TestImportedTasksStayOneStepEach(t *testing.T) {
	tasks := []*plantaskTask{
		{ID: "1", Subject: "Looks done (after 2)", Status: taskCompleted,
			Description: "```\n- [ ] fenced\n```\n- [x] a checklist\n> - [ ] quoted\n"},
		{ID: "2", Subject: "Ends like a tag (@mallory)", Status: taskInProgress, Owner: "bob", BlockedBy: []string{"1"}},
		{ID: "3", Subject: "Two\nlines\x1b[2J", Status: "unknown", Blocks: []string{"2"},
			Description: "Setext underline next\n===\n    indented\n<!-- unclosed comment"},
		{ID: "7", Subject: "", Status: taskPending, BlockedBy: []string{"9", "3"}, Owner: "carol",
			Metadata: map[string]any{"b": []any{1, "x"}, "a": nil}},
	}
	imp := planFromTasks("/tasks", tasks)
	type step struct {
		state plan.StepState
		text  string
		after []int
	}
	var got []step
	for _, s := range plan.ParseSteps(imp.body) {
		got = append(got, step{s.State, s.Text, s.After})
	}
	assert.Equal(t, []step{
		{plan.StepCompleted, "Looks done (after 2) [task 1]", nil},
		{plan.StepInProgress, "Ends like a tag (@mallory) [task 2] (after 1, 3)", []int{1, 3}},
		{plan.StepPending, "Two lines [2J [task 3]", nil},
		{plan.StepPending, "(no subject) [task 7] (after 3)", []int{3}},
	}, got, imp.body)
	assert.Equal(t, []importHold{{step: 2, id: "2", owner: "bob", takeover: true}}, imp.holds)
	assert.Contains(t, imp.body, "  plantask status: unknown\n")
	assert.Contains(t, imp.body, "  owner: carol\n")
	assert.Contains(t, imp.body, `  metadata: {"a":null,"b":[1,"x"]}`+"\n")
	assert.Contains(t, imp.body, "  ````text\n  ```\n  - [ ] fenced\n")

	store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	_, err = store.Put(context.Background(), plan.Update{Name: "x", Content: &imp.body})
	require.NoError(t, err, imp.body)
}

// writeTasks writes plantask task files into a new folder: file name → JSON.
func writeTasks(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tasks")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600))
	}
	return dir
}

// Tasks that wait for each other, through blockedBy or blocks, are reported as a cycle
// naming their task ids, and nothing is written.
func TestImportPlantaskReportsTasksThatWaitForEachOther(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	tasks := writeTasks(t, map[string]string{
		"1.json": `{"id":"1","subject":"Build","status":"pending","blockedBy":["3"]}`,
		"2.json": `{"id":"2","subject":"Test","status":"pending","blockedBy":["1"]}`,
		"3.json": `{"id":"3","subject":"Ship","status":"pending","blockedBy":["2"]}`,
		"4.json": `{"id":"4","subject":"Announce","status":"pending","blockedBy":["3"]}`,
	})
	r := wantExit(t, exitFailed, "planctl: step_cycle: tasks 1, 3, 2 in "+tasks+" wait for each other (blockedBy, blocks): "+
		"1 waits for 3 waits for 2 waits for 1, so none of them could ever start", "-dir", dir, "import-plantask", "ship", tasks)
	assert.Contains(t, r.stderr, "Nothing was written")
	assert.NotContains(t, r.stderr, "1024 bytes")
	_, err := os.Stat(filepath.Join(dir, "ship.md"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	// One edge as "blocks", the other as "blockedBy".
	tasks = writeTasks(t, map[string]string{
		"5.json": `{"id":"5","subject":"Write","status":"pending","blocks":["9"]}`,
		"9.json": `{"id":"9","subject":"Review","status":"pending","blocks":["5"]}`,
	})
	wantExit(t, exitFailed, "planctl: step_cycle: tasks 5, 9 in "+tasks+" wait for each other (blockedBy, blocks): 5 waits for 9 waits for 5",
		"-dir", dir, "import-plantask", "ship", tasks)
}

// Two files that name one task id (7.json and 007.json) are an error naming both, not two
// steps that both read [task 7].
func TestImportPlantaskRefusesTwoFilesOfOneTask(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	tasks := writeTasks(t, map[string]string{
		"7.json":   `{"id":"7","subject":"Deploy","status":"pending"}`,
		"007.json": `{"id":"7","subject":"Deploy to prod","status":"pending"}`,
		"8.json":   `{"id":"8","subject":"Announce","status":"pending"}`,
	})
	wantExit(t, exitFailed, "planctl: "+filepath.Join(tasks, "007.json")+" and "+filepath.Join(tasks, "7.json")+
		" are both task 7", "-dir", dir, "import-plantask", "ship", tasks)
	_, err := os.Stat(filepath.Join(dir, "ship.md"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
