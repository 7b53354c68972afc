package main

import (
	"context"
	"encoding/json"
	"fmt"
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
