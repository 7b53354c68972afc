package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cloudwego/eino/adk/middlewares/plantask"

	"github.com/einoplan/plan"
)

// The plantask tools, by the names Eino gives them.
const (
	toolTaskCreate = "TaskCreate"
	toolTaskList   = "TaskList"
	toolTaskUpdate = "TaskUpdate"
)

// taskOrchestrator creates one task per step, all in one turn, in its first run, and lists
// the tasks in its second.
type taskOrchestrator struct {
	steps  int
	finish bool
}

func (o *taskOrchestrator) next(results []string) []call {
	if results != nil {
		return nil
	}
	if o.finish {
		return []call{{toolTaskList, "{}"}}
	}
	calls := make([]call, 0, o.steps)
	for i := 1; i <= o.steps; i++ {
		calls = append(calls, call{toolTaskCreate, jsonObject(
			"subject", fmt.Sprintf("Step %d: migrate table billing_%02d to the new schema and check its row counts", i, i),
			"description", fmt.Sprintf("Migrate billing_%02d and compare row counts before and after.", i),
			"activeForm", fmt.Sprintf("Migrating billing_%02d", i))})
	}
	return calls
}

// taskLine is one line of TaskList's result: "#ID [status] subject [owner: X]".
var taskLine = regexp.MustCompile(`^#(\d+) \[([a-z_]+)\] .*?(?: \[owner: ([^\]]+)\])?( \[blocked by [^\]]*\])?$`)

// taskCycle is a TaskList worker's cycle: list the tasks, claim one (TaskUpdate
// in_progress + owner), complete it (TaskUpdate completed), list again. What a worker
// makes of a listing, a claim and a completion is its taskTurns.
type taskCycle struct {
	last string // "list", "claim", "complete"
	task int
}

// taskTurns are a worker's answers in its cycle: listed returns the calls after a listing
// (out; ok is whether it was one), claimed whether to go on after claiming task, and
// completed hears of task's completion.
type taskTurns interface {
	listed(out string, ok bool) []call
	claimed(task int) bool
	completed(task int)
}

func (c *taskCycle) list() []call {
	c.last = "list"
	return []call{{toolTaskList, "{}"}}
}

// claim asks for task id on behalf of owner.
func (c *taskCycle) claim(id int, owner string) []call {
	c.task, c.last = id, "claim"
	return []call{{toolTaskUpdate, jsonObject("taskId", strconv.Itoa(id), "status", "in_progress", "owner", owner)}}
}

// next is the cycle's next calls after results, the results of its last ones; nil ends it.
func (c *taskCycle) next(w taskTurns, results []string) []call {
	if results == nil || c.last == "" {
		return c.list()
	}
	switch c.last {
	case "list":
		out, ok := taskListText(results[0])
		return w.listed(out, ok)
	case "claim":
		if !w.claimed(c.task) {
			return nil
		}
		c.last = "complete"
		return []call{{toolTaskUpdate, jsonObject("taskId", strconv.Itoa(c.task), "status", "completed")}}
	case "complete":
		w.completed(c.task)
		return c.list()
	}
	return nil
}

// taskWorker claims the first free task until no task is free.
type taskWorker struct {
	taskCycle
	name string
	log  *agentLog
}

// restart forgets the run that ended, so the next one starts from TaskList.
func (w *taskWorker) restart() { w.last = "" }

func (w *taskWorker) next(results []string) []call { return w.taskCycle.next(w, results) }

func (w *taskWorker) listed(out string, ok bool) []call {
	if !ok {
		w.log.GaveUp = true
		return nil
	}
	if id := firstFreeTask(out); id != 0 {
		return w.claim(id, w.name)
	}
	return nil
}

func (w *taskWorker) claimed(task int) bool {
	w.log.Claims = append(w.log.Claims, task)
	return true
}

func (w *taskWorker) completed(task int) { w.log.Completions = append(w.log.Completions, task) }

// firstFreeTask returns the first listed task that is pending, without an owner and not
// blocked, or 0.
func firstFreeTask(list string) int {
	for _, line := range strings.Split(list, "\n") {
		m := taskLine.FindStringSubmatch(line)
		if m == nil || m[2] != "pending" || m[3] != "" || m[4] != "" {
			continue
		}
		id, err := strconv.Atoi(m[1])
		if err == nil {
			return id
		}
	}
	return 0
}

// overwriteCounter is one worker's view of the plantask backend. Before passing a task
// write on, it reads the task file and counts a lost move when the write would replace
// another agent's move that this worker's model never saw: a claim (the task owned by
// another agent, now claimed for this one) or a completion (a completed task set back to
// in progress). plantask's TaskUpdate writes whatever it is given, so both happen when two
// workers act on one TaskList. A move landing between the check and the write is missed,
// so the count is a lower bound.
type overwriteCounter struct {
	plantask.Backend
	name  string
	mu    sync.Mutex
	count int
}

func newOverwriteCounter(b plan.Backend, name string) *overwriteCounter {
	return &overwriteCounter{Backend: taskBackend{b}, name: name}
}

// taskState is the part of a task file the check looks at.
type taskState struct {
	Status string `json:"status"`
	Owner  string `json:"owner"`
}

func (o *overwriteCounter) Write(ctx context.Context, req *plantask.WriteRequest) error {
	if strings.HasSuffix(req.FilePath, ".json") {
		var next, cur taskState
		fc, err := o.Backend.Read(ctx, &plantask.ReadRequest{FilePath: req.FilePath})
		if err == nil && json.Unmarshal([]byte(fc.Content), &cur) == nil && json.Unmarshal([]byte(req.Content), &next) == nil {
			claimTaken := cur.Owner != "" && cur.Owner != o.name && next.Owner == o.name
			completionUndone := cur.Status == "completed" && next.Status != "completed"
			if claimTaken || completionUndone {
				o.mu.Lock()
				o.count++
				o.mu.Unlock()
			}
		}
	}
	return o.Backend.Write(ctx, req)
}

func (o *overwriteCounter) overwrites() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.count
}

// taskListText is the text of a TaskList result, and whether the result could be read.
func taskListText(result string) (string, bool) {
	var out struct {
		Result string `json:"result"`
	}
	if json.Unmarshal([]byte(result), &out) != nil {
		return "", false
	}
	return out.Result, true
}
