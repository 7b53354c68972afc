package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	redisbackend "github.com/einoplan/plan/backends/redis"
)

// BenchmarkRedisKnownRevisionWrite: one writer updates one plan with last_known_revision set
// to the revision its own previous write returned, as an agent moving steps does: no read
// before the write, so each write is the one pipelined round trip of a plan file and its
// history entry ("history"; "nohistory" is the same with HistoryLimit -1: the plan file
// alone). Next to it, in 5 interleaved rounds, the bare EVALSHA round trip; "ratio" is
// writes/s over EVALSHA/s.
//
//	go test -run '^$' -bench RedisKnownRevisionWrite -benchtime 2s
func BenchmarkRedisKnownRevisionWrite(b *testing.B) {
	for _, history := range []int{plan.DefaultHistoryLimit, -1} {
		name := "history"
		if history < 0 {
			name = "nohistory"
		}
		b.Run(name, func(b *testing.B) { redisKnownRevisionWrite(b, history) })
	}
}

func redisKnownRevisionWrite(b *testing.B, history int) {
	srv, _ := redisDeployments(b)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	defer client.Close()
	prefix := "bench:" + rand.Text()[:8] + ":"
	be, err := redisbackend.New(ctx, client, redisbackend.WithPrefix(prefix))
	if err != nil {
		b.Fatal(err)
	}
	s, err := plan.NewStore(&plan.StoreConfig{Backend: be, BaseDir: "/team/plans", HistoryLimit: history})
	if err != nil {
		b.Fatal(err)
	}
	p, err := s.Put(ctx, plan.Update{Name: "p", Content: ptrTo("- [ ] step 1")})
	if err != nil {
		b.Fatal(err)
	}
	if err := noopScript.Run(ctx, client, []string{prefix + "{noop}"}).Err(); err != nil {
		b.Fatal(err)
	}
	rev := p.Revision
	write := func(int) error {
		p, err := s.Put(ctx, plan.Update{Name: "p", Content: ptrTo(fmt.Sprintf("- [ ] step %d", rev+1)), IfRevision: &rev})
		if err != nil {
			return err
		}
		rev = p.Revision
		return nil
	}
	evalsha := func(int) error { return noopScript.EvalSha(ctx, client, []string{prefix + "{noop}"}).Err() }
	const rounds = 5
	var writeTime, evalTime time.Duration
	b.ResetTimer()
	for r := range rounds {
		n := b.N/rounds + boolInt(r < b.N%rounds)
		writeTime += spread(b, 1, n, write)
		evalTime += spread(b, 1, n, evalsha)
	}
	writesPerSec, callsPerSec := float64(b.N)/writeTime.Seconds(), float64(b.N)/evalTime.Seconds()
	b.ReportMetric(writesPerSec, "writes/s")
	b.ReportMetric(callsPerSec, "evalsha/s")
	b.ReportMetric(writesPerSec/callsPerSec, "ratio")
}
