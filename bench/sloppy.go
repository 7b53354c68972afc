package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/einoplan/plan"
)

// The sloppy session: the plan session (an orchestrator writes a plan, workers take the next
// free step until none is left, the orchestrator closes the plan), played by models that
// get the arguments of every call slightly wrong, in the ways models commonly do: the JSON
// in a Markdown fence, plan_name for name, the step number as a string, a synonym for the
// step's state, the revision guard as "revision" or expected_revision. A sloppy model
// that is refused for its arguments reads the message and sends the call again written
// right, which costs it a turn; a build that understands the mistakes costs none.

// sloppyStats counts what the sloppy calls of one session came to.
type sloppyStats struct {
	Calls     int // calls sent with a mistake
	Refused   int // of them, refused for their arguments (and sent again written right)
	Unguarded int // of them, accepted with their revision guard dropped
}

// sloppyDecider plays inner's calls with one common mistake each.
type sloppyDecider struct {
	inner     decider
	stats     *sloppyStats
	n         int    // calls made so far: picks the next mistake
	canonical []call // the calls last asked for, written right
	guarded   bool   // the last sloppy call carried its revision under another name
	retrying  bool   // the last calls were the canonical retry
}

func (d *sloppyDecider) next(results []string) []call {
	if results != nil && d.canonical != nil && !d.retrying {
		code := resultCode(results[0])
		if code == "invalid_argument" {
			d.stats.Refused++
			d.retrying = true
			return d.canonical
		}
		if d.guarded && code == "" && !strings.Contains(results[0], "last_known_revision") {
			d.stats.Unguarded++ // the build ignored the guard it did not know the name of
		}
	}
	d.retrying = false
	calls := d.inner.next(results)
	if len(calls) == 0 {
		d.canonical = nil
		return nil
	}
	d.canonical = calls
	out := make([]call, len(calls))
	d.guarded = false
	for i, c := range calls {
		var g bool
		out[i], g = d.sloppify(c)
		d.guarded = d.guarded || g
	}
	return out
}

// sloppyMistakes are the mistakes, tried in turn from the call's number on until one applies.
var sloppyMistakes = []func(args map[string]any) (fence, ok bool){
	func(map[string]any) (bool, bool) { return true, true }, // the object in a ```json fence
	func(a map[string]any) (bool, bool) { return false, rename(a, "name", "plan_name") },
	func(a map[string]any) (bool, bool) {
		if n, ok := a["step"].(float64); ok {
			a["step"] = fmt.Sprint(int(n))
			return false, true
		}
		return false, false
	},
	func(a map[string]any) (bool, bool) {
		synonym := map[string]string{"in_progress": "in progress", "completed": "Done"}[fmt.Sprint(a["status"])]
		if _, step := a["step"]; synonym == "" || !step && a["status"] != "in_progress" {
			return false, false
		}
		a["status"] = synonym
		return false, true
	},
	func(a map[string]any) (bool, bool) {
		if n, ok := a["last_known_revision"].(float64); ok && n > 0 {
			delete(a, "last_known_revision")
			a["revision"] = fmt.Sprint(int64(n))
			return false, true
		}
		return false, false
	},
	func(a map[string]any) (bool, bool) {
		return false, rename(a, "last_known_revision", "expected_revision")
	},
}

func rename(a map[string]any, from, to string) bool {
	v, ok := a[from]
	if !ok {
		return false
	}
	delete(a, from)
	a[to] = v
	return true
}

// sloppify writes c with the next mistake that applies to it, and reports whether its
// revision guard went under another name.
func (d *sloppyDecider) sloppify(c call) (call, bool) {
	var a map[string]any
	if err := json.Unmarshal([]byte(c.args), &a); err != nil {
		return c, false
	}
	d.stats.Calls++
	for i := range sloppyMistakes {
		k := (d.n + i) % len(sloppyMistakes)
		fence, ok := sloppyMistakes[k](a)
		if !ok {
			continue
		}
		d.n = k + 1
		js, err := json.Marshal(a)
		if err != nil {
			return c, false
		}
		args := string(js)
		if fence {
			args = "```json\n" + args + "\n```"
		}
		_, moved := a["last_known_revision"]
		return call{c.tool, args}, !moved && (a["revision"] != nil || a["expected_revision"] != nil)
	}
	d.stats.Calls--
	return c, false
}

// resultCode is the error code of a tool result, "" for a result that is no error.
func resultCode(result string) string {
	var r struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(result), &r) != nil || r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// sloppyReport is one sloppy session: the turns every model took, what the sloppy calls
// came to, and the plan at the end.
type sloppyReport struct {
	Steps, Workers int
	Sloppy         bool
	Turns          int
	Stats          sloppyStats
	Completed      int // steps completed at the end
	Status         string
}

// runSloppySession runs one session on a MemoryBackend, with careful or sloppy models.
func runSloppySession(ctx context.Context, steps, workers int, sloppy bool) (*sloppyReport, error) {
	e, err := openEnv(plan.NewMemoryBackend(), 0)
	if err != nil {
		return nil, err
	}
	rep := &sloppyReport{Steps: steps, Workers: workers, Sloppy: sloppy}
	var counted []*sloppyStats // one per agent, each agent's model runs on its own goroutine
	wrap := func(d decider) decider {
		if !sloppy {
			return d
		}
		st := &sloppyStats{}
		counted = append(counted, st)
		return &sloppyDecider{inner: d, stats: st}
	}
	var models []*reactiveModel
	orchestrate := func(finish bool) error {
		m := newReactiveModel(wrap(&planOrchestrator{steps: steps, finish: finish, log: newAgentLog("orchestrator")}))
		models = append(models, m)
		mw, err := e.middleware(ctx, kindPlan, "orchestrator", nil)
		if err != nil {
			return err
		}
		return runAgent(ctx, "orchestrator", m, mw)
	}
	if err := orchestrate(false); err != nil {
		return nil, err
	}
	errs := make(chan error, workers)
	for _, name := range workerNames(workers) {
		m := newReactiveModel(wrap(&planWorker{recover: recoverStatus, log: newAgentLog(name)}))
		models = append(models, m)
		go func() {
			mw, err := e.middleware(ctx, kindPlan, name, nil)
			if err == nil {
				err = runAgent(ctx, name, m, mw)
			}
			errs <- err
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			return nil, err
		}
	}
	if err := orchestrate(true); err != nil {
		return nil, err
	}
	for _, m := range models {
		rep.Turns += m.turns
	}
	for _, st := range counted {
		rep.Stats.Calls += st.Calls
		rep.Stats.Refused += st.Refused
		rep.Stats.Unguarded += st.Unguarded
	}
	p, err := e.store.Get(ctx, sessionPlanName)
	if err != nil {
		return nil, err
	}
	rep.Status = p.Status
	rep.Completed = plan.Summarize(p).Progress.Completed
	return rep, nil
}
