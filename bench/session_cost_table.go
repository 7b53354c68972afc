package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The cost per step tables: every setup at every number of work calls per step, billed in
// full and with prompt caching, and the goals the library's worker must meet against the
// worker with no plan tools and against plantask's.

// sharedPrefix is the length in bytes of the longest prefix a and b share, cut at a rune.
func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(b) && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}

// costGoal is the most the lean worker's cached billed input per completed step may be, as
// a multiple of the worker's with no plan tools, at each number of work calls per step; the
// full tool set may be costGoalFullSlack more.
var costGoal = map[int]float64{1: 1.5, 3: 1.25, 5: 1.15}

const (
	costGoalFullSlack = 0.15
	costGoalPlantask  = 0.33 // at most this share of plantask's cached billed input per step
	costGoalShare     = 5.0  // cached share of input within this many points of no plan tools'
	costGoalCalls     = 2    // model calls at most no plan tools' plus this many per plan
)

// costPerStepTables runs every setup at every number of work calls per step and returns the
// cost table, the goals table and the parts table, and the rows they show.
func costPerStepTables(ctx context.Context, c *counter, steps int) ([]*table, map[int]map[string]costRow, error) {
	t := newTable(fmt.Sprintf("Cost per step: one worker completes %d steps, each of 1, 3 or 5 work calls", steps),
		"Setup", "Work calls / step", "Model calls", "Input / step, full", "Input / step, cached", "Cached share of input",
		"Input / step, cached, with Eino's ids", "Output / step", "Plan calls / all tool calls", "Tax bytes / call")
	rows := map[int]map[string]costRow{}
	for _, work := range costWorkPerStep {
		rows[work] = map[string]costRow{}
		for _, kind := range costKinds {
			r, err := runCostSetup(ctx, kind, steps, work, c)
			if err != nil {
				return nil, nil, err
			}
			rows[work][kind] = r
			share := "0%"
			if r.toolCalls > 0 {
				share = fmt.Sprintf("%d / %d (%d%%)", r.planCalls, r.toolCalls, 100*r.planCalls/r.toolCalls)
			}
			t.add(r.kind, fmtInt(work), fmtInt(r.calls), fmtInt(r.in/steps), fmtInt(int(r.billedCached())/steps),
				fmtPct(r.cachedShare()), fmtInt(int(r.einoBilledCached())/steps), fmtInt(r.out/steps), share, fmtInt(r.perCallTax))
		}
	}
	t.note("Input / step, full: every input token at full price, per completed step; the prompt is every tool definition (OpenAI function JSON), the instruction and the whole history, in that order, each message as eino-ext's OpenAI model sends it (role, content, name, tool calls, tool call id); o200k tokens. Output / step: the model's messages.")
	t.note("Input / step, cached, with Eino's ids: the same, billed as this table did before, with each message as Eino serializes it: its \"extra\" (Eino's message id) and \"tool_name\", which no provider receives.")
	t.note("Input / step, cached: as a provider with prompt caching bills it: the longest prefix a prompt shares with the previous call's at %.0f%% of the price, the rest in full, in full-price tokens. Anthropic bills cache reads at 0.1x (and cache writes at 1.25x, not counted here); OpenAI bills cached input at 0.1x to 0.5x by model, from 1,024 tokens in steps of 128; DeepSeek and Gemini discount cached input too. Assumed: a cache hit on every call, at token granularity, 0.1x.", 100*cachedPrice)
	t.note("The plan (or the tasks, by plantask's TaskCreate) is written before the worker starts and not billed. plan: what the instruction teaches: take the next free step (update_plan_step in_progress), do its work calls, then complete it with next: true, listed first in the message of the next step's first work call ([update_plan_step completed next, migrate_table]); the first take and the last completion go alone. %s: the same, with evidence in each completion, as the host requires (Config.RequireEvidence) and the instruction then teaches. plantask: TaskList, TaskUpdate in_progress with owner, the work calls, TaskUpdate completed; no plan tools: the steps are listed in the instruction and worked in order.", costLeanEvidence)
	t.note("Tax bytes / call: tool definitions and system instruction the first model call carries, the work tool's and the agent's own instruction included.")

	g := newTable("Cost per step: goals", "Work calls / step", "Goal", "plan, lean worker", "plan", costLeanEvidence, costLeanAdvance, costAdvance)
	pass := func(ok bool) string {
		if ok {
			return "pass"
		}
		return "fail"
	}
	perStep := func(r costRow) float64 { return r.billedCached() / float64(steps) }
	for _, work := range costWorkPerStep {
		bare, task := rows[work]["no plan tools"], rows[work]["plantask"]
		cells := func(goal string, judge func(r costRow, slack float64) string) {
			g.add(fmtInt(work), goal, judge(rows[work]["plan, lean worker"], 0), judge(rows[work]["plan"], costGoalFullSlack), judge(rows[work][costLeanEvidence], 0),
				judge(rows[work][costLeanAdvance], 0), judge(rows[work][costAdvance], costGoalFullSlack))
		}
		cells(fmt.Sprintf("model calls ≤ no plan tools' + %d (%d)", costGoalCalls, bare.calls+costGoalCalls), func(r costRow, _ float64) string {
			return fmt.Sprintf("%d: %s", r.calls, pass(r.calls <= bare.calls+costGoalCalls))
		})
		cells(fmt.Sprintf("cached input / step ≤ %.2f× no plan tools' (full set +%.2f)", costGoal[work], costGoalFullSlack), func(r costRow, slack float64) string {
			ratio := perStep(r) / perStep(bare)
			return fmt.Sprintf("%.3f× (with Eino's ids %.3f×): %s", ratio, r.einoBilledCached()/bare.einoBilledCached(), pass(ratio <= costGoal[work]+slack))
		})
		cells(fmt.Sprintf("cached input / step ≤ %.2f× plantask's", costGoalPlantask), func(r costRow, _ float64) string {
			ratio := perStep(r) / perStep(task)
			return fmt.Sprintf("%.3f× (with Eino's ids %.3f×): %s", ratio, r.einoBilledCached()/task.einoBilledCached(), pass(ratio <= costGoalPlantask))
		})
		cells(fmt.Sprintf("cached share within %.0f points of no plan tools' (%s)", costGoalShare, fmtPct(bare.cachedShare())), func(r costRow, _ float64) string {
			d := r.cachedShare() - bare.cachedShare()
			return fmt.Sprintf("%+.1f points: %s", d, pass(d >= -costGoalShare && d <= costGoalShare))
		})
	}
	g.note("All from the run above, billed as a provider receives the messages; in parentheses, as Eino serializes them (with its message ids). The full tool set's input goal is the lean worker's plus %.2f; the lean worker with evidence required and on proven steps by the lean worker's goals, the full set on proven steps by the full set's. Model calls: +%d for the one plan (the first take and the last completion).", costGoalFullSlack, costGoalCalls)
	return []*table{t, g, costPartsTable(rows, steps)}, rows, nil
}

// costRowsText is a plain listing of a table, for the test's log.
func costRowsText(t *table) string {
	var b strings.Builder
	for _, r := range t.rows {
		b.WriteString(strings.Join(r, " | "))
		b.WriteByte('\n')
	}
	return b.String()
}

// costSteps is how many steps the cost per step tables' worker completes.
const costSteps = 20

// costCommand prints the cost per step tables alone (go run . -cost).
func costCommand(ctx context.Context, w io.Writer) error {
	c, err := newCounter()
	if err != nil {
		return err
	}
	tables, _, err := costPerStepTables(ctx, c, costSteps)
	if err != nil {
		return err
	}
	for i, t := range tables {
		if err := t.check(); err != nil {
			return err
		}
		sep := ""
		if i > 0 {
			sep = "\n"
		}
		if _, err := io.WriteString(w, sep+t.markdown()); err != nil {
			return err
		}
	}
	return nil
}
