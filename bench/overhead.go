package main

import (
	"context"
	"fmt"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/plantask"

	"github.com/einoplan/plan"
)

const agentInstruction = "You are a careful engineering agent."

// overheadEnv is one backend holding n plans, with the middlewares whose BeforeAgent is
// timed.
type overheadEnv struct {
	kind      backendKind
	n         int
	o         *opened
	mw, plain adk.ChatModelAgentMiddleware // digest on; digest off
	pt        adk.ChatModelAgentMiddleware
	seededAt  time.Time
}

// overheadSetup holds the environments of table 5. They are seeded before the other
// tables run, so that on a file system the racy window has usually passed by the time
// they are timed.
type overheadSetup struct {
	envs []*overheadEnv
}

func (s *overheadSetup) close() {
	for _, e := range s.envs {
		e.o.close()
	}
}

func prepareOverhead(ctx context.Context, cfg config) (*overheadSetup, error) {
	s := &overheadSetup{}
	for _, kind := range cfg.kinds {
		for _, n := range cfg.overheadSizes {
			o, err := kind.open()
			if err != nil {
				s.close()
				return nil, err
			}
			e := &overheadEnv{kind: kind, n: n, o: o}
			s.envs = append(s.envs, e)
			if err := seedPlans(o, n); err != nil {
				s.close()
				return nil, err
			}
			e.seededAt = time.Now()
			if e.mw, err = plan.New(ctx, &plan.Config{Backend: o.backend, BaseDir: plansDir}); err != nil {
				s.close()
				return nil, err
			}
			if e.plain, err = plan.New(ctx, &plan.Config{Backend: o.backend, BaseDir: plansDir, Digest: plan.DigestConfig{Disabled: true}}); err != nil {
				s.close()
				return nil, err
			}
			if e.pt, err = plantask.New(ctx, &plantask.Config{Backend: taskBackend{o.backend}, BaseDir: tasksDir}); err != nil {
				s.close()
				return nil, err
			}
		}
	}
	return s, nil
}

// overheadTable is table 5: what the middleware adds to the start of every run.
func overheadTable(ctx context.Context, cfg config, s *overheadSetup) (*table, error) {
	t := newTable("5. Middleware overhead: BeforeAgent with the digest, warm cache",
		"Backend", "Plans", "plan BeforeAgent", "Digest bytes", "plantask BeforeAgent")
	var at1000 []string
	waited := false
	for _, e := range s.envs {
		if e.kind.racy && cfg.waitRacy {
			sleepUntil(e.seededAt.Add(racyWait))
			waited = true
		}
		run := func(mw adk.ChatModelAgentMiddleware) (*adk.ChatModelAgentContext, error) {
			_, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{Instruction: agentInstruction})
			return rc, err
		}
		with, err := run(e.mw) // also fills the cache
		if err != nil {
			return nil, err
		}
		without, err := run(e.plain)
		if err != nil {
			return nil, err
		}
		digest := len(with.Instruction) - len(without.Instruction)
		if e.n > 0 && digest == 0 {
			return nil, fmt.Errorf("no digest with %d plans", e.n)
		}
		ns, err := cfg.overheadTiming.measure(
			contender{fn: func(int) error { _, err := run(e.mw); return err }},
			contender{fn: func(int) error { _, err := run(e.pt); return err }})
		if err != nil {
			return nil, err
		}
		ours, theirs := ns[0], ns[1]
		t.add(e.kind.name, fmtInt(e.n), fmtNs(ours), fmtInt(digest), fmtNs(theirs))
		if e.n == 1000 {
			verdict := "met"
			if ours >= 1e6 {
				verdict = "missed"
			}
			at1000 = append(at1000, fmt.Sprintf("%s on %s (%s)", verdict, e.kind.name, fmtNs(ours)))
		}
	}
	t.note("BeforeAgent of plan.New with the default digest (at most 12 plans, 1,500 bytes): it adds the tools and the instruction, lists the plans through the Store and renders the digest. Median over %d batches after a warm-up call that fills the list cache.", cfg.overheadTiming.reps)
	if waited {
		t.note("On LocalBackend the plans were last written more than %v before timing, so the Store caches every summary (warm cache) and the folder's stamp vouches for the last listing: what remains per call is one stat of the folder and the rendering. After a change the folder is listed again, one stat per plan (BENCHMARKS.md, \"BeforeAgent at 1,000 plans\").", racyWait)
	}
	t.note("Digest bytes: what the digest adds to the instruction. plantask's BeforeAgent only adds its four tools and reads no storage, so its cost does not grow with the number of entries; it is shown for scale.")
	if len(at1000) > 0 {
		t.note("Goal: under 1 ms at 1,000 plans: %s.", joinAnd(at1000))
	}
	return t, nil
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	out := xs[0]
	for _, x := range xs[1 : len(xs)-1] {
		out += ", " + x
	}
	return out + " and " + xs[len(xs)-1]
}
