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

// overheadTable is table 5: what the middleware adds to the start of every run.
func overheadTable(ctx context.Context, cfg config) (*table, error) {
	t := newTable("5. Middleware overhead: BeforeAgent with the digest, warm cache",
		"Backend", "Plans", "plan BeforeAgent", "Digest bytes", "plantask BeforeAgent")
	var at1000 []string
	for _, kind := range cfg.kinds {
		type env struct {
			n            int
			o            *opened
			mw, plain    adk.ChatModelAgentMiddleware
			pt           adk.ChatModelAgentMiddleware
			digestLength int
		}
		var envs []*env
		closeAll := func() {
			for _, e := range envs {
				e.o.close()
			}
		}
		for _, n := range cfg.overheadSizes {
			o, err := kind.open()
			if err != nil {
				closeAll()
				return nil, err
			}
			e := &env{n: n, o: o}
			envs = append(envs, e)
			if err := seedPlans(o, n); err != nil {
				closeAll()
				return nil, err
			}
			if e.mw, err = plan.New(ctx, &plan.Config{Backend: o.backend, BaseDir: plansDir}); err != nil {
				closeAll()
				return nil, err
			}
			if e.plain, err = plan.New(ctx, &plan.Config{Backend: o.backend, BaseDir: plansDir, Digest: plan.DigestConfig{Disabled: true}}); err != nil {
				closeAll()
				return nil, err
			}
			if e.pt, err = plantask.New(ctx, &plantask.Config{Backend: taskBackend{o.backend}, BaseDir: tasksDir}); err != nil {
				closeAll()
				return nil, err
			}
		}
		if kind.racy && cfg.waitRacy {
			time.Sleep(racyWait)
		}
		for _, e := range envs {
			run := func(mw adk.ChatModelAgentMiddleware) (*adk.ChatModelAgentContext, error) {
				_, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{Instruction: agentInstruction})
				return rc, err
			}
			with, err := run(e.mw) // also fills the cache
			if err != nil {
				closeAll()
				return nil, err
			}
			without, err := run(e.plain)
			if err != nil {
				closeAll()
				return nil, err
			}
			e.digestLength = len(with.Instruction) - len(without.Instruction)
			if e.n > 0 && e.digestLength == 0 {
				closeAll()
				return nil, fmt.Errorf("no digest with %d plans", e.n)
			}
			ns, err := cfg.overheadTiming.measure(
				contender{fn: func(int) error { _, err := run(e.mw); return err }},
				contender{fn: func(int) error { _, err := run(e.pt); return err }})
			if err != nil {
				closeAll()
				return nil, err
			}
			ours, theirs := ns[0], ns[1]
			t.add(kind.name, fmtInt(e.n), fmtNs(ours), fmtInt(e.digestLength), fmtNs(theirs))
			if e.n == 1000 {
				verdict := "met"
				if ours >= 1e6 {
					verdict = "missed"
				}
				at1000 = append(at1000, fmt.Sprintf("%s on %s (%s)", verdict, kind.name, fmtNs(ours)))
			}
		}
		closeAll()
	}
	t.note("BeforeAgent of plan.New with the default digest (at most 12 plans, 1,500 bytes): it adds the tools and the instruction, lists the plans through the Store and renders the digest. Median over %d batches after a warm-up call that fills the list cache; on a file system the plans were last written more than 2 s before, so all are cached.", cfg.overheadTiming.reps)
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
