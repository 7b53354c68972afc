package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
)

// BeforeAgent of plan.New with the default digest, 1,000 plans in the folder and none
// changing: what every agent run pays before its first model call. Next to it, "relist"
// is the same call when the folder's stamp cannot vouch for the last listing (a change
// within the racy window, or a backend without a stamp): one listing, summaries from the
// cache. "changed" is the call after another Store changed the status of one plan (untimed,
// the same plan every time): the stamp moves, the folder is listed and that plan read. The
// goal is under 1 ms on every backend.
//
//	go test -run '^$' -bench BeforeAgentDigest -benchtime 2s
func BenchmarkBeforeAgentDigest(b *testing.B) {
	ctx := context.Background()
	kinds := []backendKind{memoryKind(), localKind(), benchRedisKind(b)}
	for _, kind := range kinds {
		o, err := kind.open()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(o.close)
		if err := seedPlans(o, 1000); err != nil {
			b.Fatal(err)
		}
		if kind.racy {
			time.Sleep(racyWait)
		}
		writer, err := plan.NewStore(&plan.StoreConfig{Backend: o.backend, BaseDir: plansDir})
		if err != nil {
			b.Fatal(err)
		}
		changeOne := func(i int) error { // another agent's status update, outside the timing
			_, err := writer.SetStatus(ctx, planName(0), fmt.Sprintf("step %d", i), nil)
			return err
		}
		for _, mode := range []struct {
			name    string
			backend plan.Backend
			change  func(i int) error
		}{{"unchanged", o.backend, nil}, {"relist", withoutStamp(o.backend), nil}, {"changed", o.backend, changeOne}} {
			b.Run(kind.name+"/"+mode.name, func(b *testing.B) {
				mw, err := plan.New(ctx, &plan.Config{Backend: mode.backend, BaseDir: plansDir})
				if err != nil {
					b.Fatal(err)
				}
				run := func() {
					if _, _, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{Instruction: agentInstruction}); err != nil {
						b.Fatal(err)
					}
				}
				run()
				run() // the second listing comes wholly from the cache: the stamp vouches from here on
				b.ResetTimer()
				for i := range b.N {
					if mode.change != nil {
						b.StopTimer()
						if err := mode.change(i); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					run()
				}
			})
		}
	}
}

// stamplessBackend hides every capability of the Backend it holds, its folder stamp too.
type stamplessBackend struct{ plan.Backend }

// strictStampless is a stamplessBackend that keeps the strict modification times of the
// Backend it holds, so the Store caches a summary the moment it reads it, as on that Backend.
type strictStampless struct{ stamplessBackend }

func (strictStampless) StrictModTimes() bool { return true }

// withoutStamp is b without its folder stamp: every listing reads the folder, as after a
// change, while summaries are cached as b allows.
func withoutStamp(b plan.Backend) plan.Backend {
	if s, ok := b.(driver.StrictModTimer); ok && s.StrictModTimes() {
		return strictStampless{stamplessBackend{b}}
	}
	return stamplessBackend{b}
}

// benchRedisKind is a RedisBackend on the benchmarks' redis-server, a fresh key prefix per open.
func benchRedisKind(tb testing.TB) backendKind {
	server, _ := redisDeployments(tb)
	return redisKindAt(server.Addr())
}
