package main

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// Reading TaskList's results and the list, claim, complete cycle of the workers that read
// them (session_plantask.go, graph.go).

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
