package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/einoplan/plan"
)

// resyncCall is one way for an agent to catch up with a plan another agent changed.
type resyncCall struct {
	label, args, result string
}

// resyncArgs are the worker's two ways to catch up: a full read_plan, and read_plan with
// since_revision 1.
var resyncArgs = []struct{ label, args string }{
	{"read_plan", jsonObject("name", editPlanName)},
	{"read_plan since_revision", jsonObject("name", editPlanName, "since_revision", 1)},
}

// resyncSetup puts the edit-loop plan at revision 1 and lets a teammate (another
// middleware on the same backend) complete step editStep; it returns the worker's tools.
func resyncSetup(ctx context.Context) (*toolbox, error) {
	backend := plan.NewMemoryBackend()
	box := func(agent string) (*toolbox, error) {
		mw, err := plan.New(ctx, &plan.Config{Backend: backend, AgentName: agent, Digest: plan.DigestConfig{Disabled: true}})
		if err != nil {
			return nil, err
		}
		return toolboxOf(ctx, mw)
	}
	worker, err := box("worker")
	if err != nil {
		return nil, err
	}
	mate, err := box("teammate")
	if err != nil {
		return nil, err
	}
	if _, err := worker.call(plan.ToolWritePlan, jsonObject("name", editPlanName, "content", migrationPlan(), "last_known_revision", 0)); err != nil {
		return nil, err
	}
	if _, err := mate.call(plan.ToolUpdatePlanStep, jsonObject("name", editPlanName, "step", editStep, "status", "completed", "last_known_revision", 1)); err != nil {
		return nil, err
	}
	return worker, nil
}

// resyncCalls runs both ways to catch up after resyncSetup and checks they agree.
func resyncCalls(ctx context.Context) ([]resyncCall, error) {
	worker, err := resyncSetup(ctx)
	if err != nil {
		return nil, err
	}
	var out []resyncCall
	for _, c := range resyncArgs {
		res, err := worker.call(plan.ToolReadPlan, c.args)
		if err != nil {
			return nil, err
		}
		out = append(out, resyncCall{c.label, c.args, res})
	}
	// The short answer must say what the long one shows: the step is now completed.
	var changes struct {
		Revision int64  `json:"revision"`
		Changes  string `json:"changes"`
	}
	if err := json.Unmarshal([]byte(out[1].result), &changes); err != nil {
		return nil, err
	}
	_, done := stepTexts()
	if changes.Revision != 2 || !strings.Contains(changes.Changes, "+"+done+"\n") || !strings.Contains(out[0].result, done) {
		return nil, fmt.Errorf("re-sync results do not show step %d completed: %s", editStep, out[1].result)
	}
	return out, nil
}

// resyncTokens returns the o200k tokens (arguments plus result) of each resyncCall.
func resyncTokens(c *counter, calls []resyncCall) []int {
	out := make([]int, len(calls))
	for i, cl := range calls {
		out[i] = c.o(cl.args) + c.o(cl.result)
	}
	return out
}

// resyncTable is table 2d: what catching up costs after another agent's step move.
func resyncTable(ctx context.Context, c *counter) (*table, error) {
	calls, err := resyncCalls(ctx)
	if err != nil {
		return nil, err
	}
	tokens := resyncTokens(c, calls)
	t := newTable(fmt.Sprintf("2d. Re-sync: catch up after another agent completed step %d of the 60-step plan", editStep),
		"Call", "Args bytes", "Args o200k", "Result bytes", "Result o200k", "Call o200k", "Share of read_plan")
	for i, cl := range calls {
		t.add(cl.label, fmtInt(len(cl.args)), fmtInt(c.o(cl.args)), fmtInt(len(cl.result)), fmtInt(c.o(cl.result)),
			fmtInt(tokens[i]), fmtPct(100*float64(tokens[i])/float64(tokens[0])))
	}
	t.note("The worker read revision 1; a teammate's update_plan_step made revision 2. read_plan with since_revision 1 returns the changed lines (a unified diff without context), the revision and the progress instead of the body. The goal is at most 10%% of a full read_plan.")
	t.note("since_revision result: `%s`", calls[1].result)
	return t, nil
}
