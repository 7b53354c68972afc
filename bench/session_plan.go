package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/einoplan/plan"
)

// sessionPlanName is the plan every session works on.
const sessionPlanName = "session"

// sessionContent is the orchestrator's plan: n pending steps, one line each.
func sessionContent(n int) string {
	var b strings.Builder
	b.WriteString("# Migrate the billing tables\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- [ ] Step %d: migrate table billing_%02d to the new schema and check its row counts\n", i, i)
	}
	return b.String()
}

// stepRef is a step as results name it: next_step, current_step, or an error's next_step.
type stepRef struct {
	Number int    `json:"number"`
	Status string `json:"status"`
	Text   string `json:"text"`
}

// planResult holds the fields a worker reads from any plan tool result.
type planResult struct {
	Error *struct {
		Code            string   `json:"code"`
		CurrentRevision int64    `json:"current_revision"`
		NextStep        *stepRef `json:"next_step"`
	} `json:"error"`
	Revision    int64    `json:"revision"`
	Step        int      `json:"step"`
	Status      string   `json:"status"`
	NextStep    *stepRef `json:"next_step"`
	CurrentStep *stepRef `json:"current_step"`
	Done        string   `json:"done"` // update_plan_step: the steps done of all, "12/20"
	Content     string   `json:"content"`
}

// Recovery after an error result: recoverRead re-reads the whole plan (read_plan) and takes
// the first pending step from its body; recoverStatus uses the next_step and
// current_revision the error carries, else asks get_plan_status, and claims by asking for the
// next free step.
const (
	recoverRead   = "read"
	recoverStatus = "status"
)

// maxWorkerErrors bounds the error results one worker takes in a row before it gives up,
// so a session always ends.
const maxWorkerErrors = 50

// planWorker takes the next free step, moves it to in_progress and then to completed,
// passing the last revision it saw as last_known_revision, until no step is left.
type planWorker struct {
	recover string
	log     *agentLog
	rev     int64
	held    int    // the step this worker moved to in_progress and has not completed
	last    string // what the last call did: "status", "read", "claim", "complete"
	step    int    // the step of the last claim or completion
	errs    int    // error results in a row
}

func (w *planWorker) statusCall() []call {
	w.last = "status"
	return []call{{plan.ToolGetPlanStatus, jsonObject("name", sessionPlanName)}}
}

func (w *planWorker) move(step int, status string) []call {
	w.step = step
	w.last = "claim"
	if status == "completed" {
		w.last = "complete"
	}
	return []call{{plan.ToolUpdatePlanStep, jsonObject("name", sessionPlanName, "step", step, "status", status, "last_known_revision", w.rev)}}
}

// claimOrStop claims step s, or ends the run when there is none. This build's worker asks
// for the next free step (no step number), which the Store picks atomically.
func (w *planWorker) claimOrStop(s *stepRef) []call {
	if s == nil || s.Number < 1 {
		return nil
	}
	if w.recover == recoverStatus {
		return w.claimNext()
	}
	return w.move(s.Number, "in_progress")
}

// claimNext asks for the next free step (no step number), which the Store picks atomically.
func (w *planWorker) claimNext() []call {
	w.step, w.last = 0, "claim"
	return []call{{plan.ToolUpdatePlanStep, jsonObject("name", sessionPlanName, "status", "in_progress", "last_known_revision", w.rev)}}
}

func (w *planWorker) next(results []string) []call {
	if results == nil {
		return w.statusCall()
	}
	var r planResult
	if err := json.Unmarshal([]byte(results[0]), &r); err != nil {
		w.log.GaveUp = true
		return nil
	}
	if r.Error != nil {
		return w.onError(&r)
	}
	w.errs = 0
	switch w.last {
	case "status", "read":
		w.rev = r.Revision
		if w.held != 0 {
			return w.move(w.held, "completed")
		}
		if w.last == "read" {
			return w.claimOrStop(firstPending(r.Content))
		}
		if r.NextStep == nil && w.recover == recoverRead {
			// The previous build's get_plan_status names only the current step (the
			// first in progress, else the first pending).
			return w.claimOrStop(r.CurrentStep)
		}
		return w.claimOrStop(r.NextStep)
	case "claim":
		w.rev = r.Revision
		if r.Step > 0 {
			w.step = r.Step
		}
		w.held = w.step
		w.log.Claims = append(w.log.Claims, w.step)
		w.log.Moves = append(w.log.Moves, stepMove{w.step, r.Revision})
		return w.move(w.step, "completed")
	case "complete":
		w.rev = r.Revision
		w.held = 0
		w.log.Completions = append(w.log.Completions, w.step)
		w.log.Moves = append(w.log.Moves, stepMove{w.step, r.Revision})
		if w.recover == recoverStatus && !allDone(r.Done) {
			return w.claimNext() // this build's result names no next step: the Store finds it
		}
		return w.claimOrStop(r.NextStep)
	}
	return nil
}

// onError counts the error and recovers: a completion is retried on the same step, a
// claim on the step the fresh state names.
func (w *planWorker) onError(r *planResult) []call {
	if w.last == "claim" && w.step == 0 && r.Error.Code == "illegal_transition" {
		return nil // asked for the next free step, and none is left: the work is done
	}
	w.log.Errors[r.Error.Code]++
	step := 0
	if w.last == "claim" || w.last == "complete" {
		step = w.step
	}
	w.log.Conflicts = append(w.log.Conflicts, conflict{step, r.Error.Code, w.rev, r.Error.CurrentRevision})
	w.errs++
	if w.errs > maxWorkerErrors {
		w.log.GaveUp = true
		return nil
	}
	if w.recover == recoverRead {
		w.last = "read"
		return []call{{plan.ToolReadPlan, jsonObject("name", sessionPlanName)}}
	}
	if r.Error.CurrentRevision > 0 {
		switch {
		case w.last == "complete":
			w.rev = r.Error.CurrentRevision
			return w.move(w.held, "completed")
		case w.last == "claim" && r.Error.NextStep != nil:
			w.rev = r.Error.CurrentRevision
			return w.claimOrStop(r.Error.NextStep)
		}
	}
	return w.statusCall()
}

// allDone reports whether "x/y" says every step is done; false when it says nothing.
func allDone(done string) bool {
	x, y, ok := strings.Cut(done, "/")
	return ok && x == y
}

// firstPending returns the first "[ ]" checklist item of a plan body, numbered among all
// its checklist items.
func firstPending(body string) *stepRef {
	n := 0
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "- [") || len(t) < 6 || t[4] != ']' {
			continue
		}
		n++
		if t[3] == ' ' {
			return &stepRef{Number: n, Status: "pending", Text: t[6:]}
		}
	}
	return nil
}

// planOrchestrator writes the plan in its first run and, in its second, marks it done once
// get_plan_status shows every step over.
type planOrchestrator struct {
	steps  int
	finish bool
	log    *agentLog
	last   string
}

func (o *planOrchestrator) next(results []string) []call {
	if !o.finish {
		if results == nil {
			return []call{{plan.ToolWritePlan, jsonObject("name", sessionPlanName, "title", "Billing migration",
				"content", sessionContent(o.steps), "status", "in-progress", "last_known_revision", 0)}}
		}
		return nil
	}
	if results == nil {
		o.last = "status"
		return []call{{plan.ToolGetPlanStatus, jsonObject("name", sessionPlanName)}}
	}
	var r planResult
	if err := json.Unmarshal([]byte(results[0]), &r); err != nil {
		return nil
	}
	if r.Error != nil {
		o.log.Errors[r.Error.Code]++
		if o.log.Errors[r.Error.Code] > maxWorkerErrors {
			return nil
		}
		o.last = "status"
		return []call{{plan.ToolGetPlanStatus, jsonObject("name", sessionPlanName)}}
	}
	if o.last == "status" {
		o.last = "done"
		return []call{{plan.ToolSetPlanStatus, jsonObject("name", sessionPlanName, "status", "done", "last_known_revision", r.Revision)}}
	}
	return nil
}
