package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"
)

// sessionFigures are the measures of one session.
type sessionFigures struct {
	turns, conflicts, sameStep, otherSteps, tokensIn, tokensOut int
	doneTwice, lost, left                                       int
	wall                                                        time.Duration
}

// figures derives a session's measures from its report.
//
// A conflict is on the same step when its code says the step itself was taken (step_held,
// illegal_transition) or another agent's acknowledged move of that step made a revision
// between the one the call named and the one the error reported; any other conflict was
// caused by moves of other steps (plantask: every run a tool's Go error ended).
//
// Done twice counts, for each step, the workers beyond the first whose completion of it
// was acknowledged. Lost moves are acknowledged moves that the stored result does not
// show: for plan, acknowledged writes minus the revisions the plan advanced (each write
// is one revision); for plantask, writes that replaced another agent's claim or undid its
// completion (overwriteCounter).
func (r *sessionReport) figures() sessionFigures {
	f := sessionFigures{wall: time.Duration(r.Wall), left: r.StepsLeft}
	completers := map[int]map[string]bool{}
	moved := map[int][]int64{}
	for _, a := range r.Agents {
		for _, m := range a.Moves {
			moved[m.Step] = append(moved[m.Step], m.Rev)
		}
	}
	acked := 0
	for _, a := range r.Agents {
		for _, c := range a.Conflicts {
			if sameStepConflict(c, moved[c.Step]) {
				f.sameStep++
			} else {
				f.otherSteps++
			}
		}
		f.otherSteps += a.Aborted
		f.turns += a.Turns
		f.tokensIn += a.TokensIn
		f.tokensOut += a.TokensOut
		for _, n := range a.Errors {
			f.conflicts += n
		}
		f.conflicts += a.Aborted
		f.lost += a.Overwrites
		acked += len(a.Claims) + len(a.Completions)
		for _, s := range a.Completions {
			if completers[s] == nil {
				completers[s] = map[string]bool{}
			}
			completers[s][a.Name] = true
		}
	}
	for _, who := range completers {
		f.doneTwice += len(who) - 1
	}
	if r.Spec.Kind == kindPlan {
		acked++ // write_plan
		if r.Status == "done" {
			acked++ // set_plan_status
		}
		f.lost += acked - int(r.Revision)
	}
	return f
}

// sameStepConflict reports whether c was about its own step: the step was taken, or moved
// (at one of revs) after the revision the call named.
func sameStepConflict(c conflict, revs []int64) bool {
	if c.Step == 0 {
		return false
	}
	if c.Code == "step_held" || c.Code == "illegal_transition" {
		return true
	}
	for _, r := range revs {
		if r > c.Base && r <= c.Current {
			return true
		}
	}
	return false
}

// errorCodes lists the error codes of a report, most frequent first, as "code ×n".
func errorCodes(reps []*sessionReport) string {
	counts := map[string]int{}
	for _, r := range reps {
		for _, a := range r.Agents {
			for code, n := range a.Errors {
				counts[code] += n
			}
			if a.Aborted > 0 {
				counts["run aborted by a tool's Go error"] += a.Aborted
			}
		}
	}
	if len(counts) == 0 {
		return "none"
	}
	codes := make([]string, 0, len(counts))
	for c := range counts {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool {
		if counts[codes[i]] != counts[codes[j]] {
			return counts[codes[i]] > counts[codes[j]]
		}
		return codes[i] < codes[j]
	})
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s ×%d", c, counts[c])
	}
	return strings.Join(parts, ", ")
}

func medianInt(xs []int) int {
	s := append([]int(nil), xs...)
	sort.Ints(s)
	return s[len(s)/2]
}

// sessionMode is how a session's agents are spread and what they share.
type sessionMode struct {
	label string
	local bool
	procs int
}

var sessionModes = []sessionMode{
	{"goroutines, MemoryBackend", false, 0},
	{"goroutines, LocalBackend", true, 0},
	{"2 processes, LocalBackend", true, 2},
}

// sessionImpl is one side of the comparison: a binary (this one when ""), a kind and a
// worker's recovery.
type sessionImpl struct {
	label, binary, kind, recover string
}

// sessionOptions configure the session table.
type sessionOptions struct {
	old, oldLabel  string // a bench binary built from an earlier commit, and its name
	rounds         int
	steps, workers int
	newRecover     string
	progress       io.Writer
	modes          []sessionMode
}

// sessionImpls returns the sides compared: the earlier build when given, this build, and
// plantask.
func sessionImpls(o sessionOptions) []sessionImpl {
	var out []sessionImpl
	if o.old != "" {
		out = append(out, sessionImpl{"plan, " + o.oldLabel, o.old, kindPlan, recoverRead})
	}
	out = append(out, sessionImpl{"plan, this build", "", kindPlan, o.newRecover},
		sessionImpl{"Eino plantask", "", kindPlantask, ""})
	return out
}

// sessionTable runs every side in every mode o.rounds times, alternating the order of the
// sides between rounds, each session in a process of its own, and tables the medians.
func sessionTable(ctx context.Context, o sessionOptions) (*table, error) {
	impls := sessionImpls(o)
	reports := map[string][]*sessionReport{}
	key := func(m sessionMode, im sessionImpl) string { return m.label + "|" + im.label }
	for round := 0; round < o.rounds; round++ {
		for _, m := range o.modes {
			for k := range impls {
				im := impls[(k+round)%len(impls)]
				spec := sessionSpec{Kind: im.kind, Local: m.local, Procs: m.procs, Steps: o.steps, Workers: o.workers, Recover: im.recover}
				var rep sessionReport
				if err := runChild(ctx, im.binary, roleSession, spec, &rep); err != nil {
					return nil, fmt.Errorf("session %s, %s: %w", m.label, im.label, err)
				}
				reports[key(m, im)] = append(reports[key(m, im)], &rep)
			}
		}
		if o.progress != nil {
			fmt.Fprintf(o.progress, "bench: session round %d of %d done\n", round+1, o.rounds)
		}
	}
	t := newTable(fmt.Sprintf("Session: an orchestrator and %d workers complete a %d-step plan", o.workers, o.steps),
		"Mode", "Tools", "Turns", "Conflicts", "same step", "other steps", "Tokens in", "Tokens out", "Done twice", "Lost moves", "Steps left", "Wall time")
	for _, m := range o.modes {
		for _, im := range impls {
			reps := reports[key(m, im)]
			var turns, conf, same, other, in, out, twice, lost, left, wall []int
			for _, r := range reps {
				f := r.figures()
				turns = append(turns, f.turns)
				conf = append(conf, f.conflicts)
				same = append(same, f.sameStep)
				other = append(other, f.otherSteps)
				in = append(in, f.tokensIn)
				out = append(out, f.tokensOut)
				twice = append(twice, f.doneTwice)
				lost = append(lost, f.lost)
				left = append(left, f.left)
				wall = append(wall, int(f.wall))
			}
			t.add(m.label, im.label, fmtInt(medianInt(turns)), fmtInt(medianInt(conf)), fmtInt(medianInt(same)), fmtInt(medianInt(other)),
				fmtInt(medianInt(in)), fmtInt(medianInt(out)), fmtInt(medianInt(twice)), fmtInt(medianInt(lost)),
				fmtInt(medianInt(left)), fmtNs(float64(medianInt(wall))))
			t.note("%s, %s: %s; per round, other steps %v, done twice %v, lost moves %v.", m.label, im.label, errorCodes(reps), other, twice, lost)
		}
	}
	t.note("Medians of %d rounds; in each round every side runs once per mode, in a rotating order, each session in a fresh process (and folder). Every agent is an adk.ChatModelAgent run by an adk.Runner, driven by a model that chooses its next tool call from the last result; turns count model calls of all agents, the orchestrator's included.", o.rounds)
	t.note("plan worker: get_plan_status, then update_plan_step in_progress and completed with last_known_revision = the last revision seen, taking next_step from each result. After an error result, the previous build's worker re-reads the plan (read_plan) and claims its first pending step; this build's worker claims by update_plan_step without a step number (the next free step, taken atomically) and, after an error, uses the next_step and current_revision the error carries, else get_plan_status. plantask worker: TaskList, TaskUpdate in_progress + owner on the first pending task without owner, TaskUpdate completed, TaskList again.")
	t.note("Conflicts: error results (and, for plantask, runs a tool's Go error ended; the worker starts again), split into those on the step the call tried to move (step_held, illegal_transition, or a revision_conflict after another agent moved that very step) and those caused by moves of other steps (every other one, plantask's ended runs included). Tokens: o200k of tool-call arguments (in) and tool results (out). Done twice: completions of a step by a second worker. Lost moves: for plan, acknowledged writes minus revisions advanced; for plantask, task writes that replaced another agent's claim (owner) or undid a completion the writer's model never saw (checked just before each write, so a lower bound). Steps left: steps not completed at the end. Wall time: from the orchestrator's first run to the end of its second, the start of worker processes included.")
	return t, nil
}

// sessionCommand prints the session table for -session.
func sessionCommand(ctx context.Context, w io.Writer, o sessionOptions) error {
	start := time.Now()
	t, err := sessionTable(ctx, o)
	if err != nil {
		return err
	}
	if err := t.check(); err != nil {
		return err
	}
	fmt.Fprintf(w, "## plan session benchmark\n\n- Go: %s %s/%s\n- CPU: %s\n- Cores: %d (GOMAXPROCS %d)\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprint(w, t.markdown())
	fmt.Fprintf(os.Stderr, "bench: session run took %v\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}
