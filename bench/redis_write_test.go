package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/driver"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	redisbackend "github.com/einoplan/plan/backends/redis"
)

// BenchmarkRedisKnownRevisionWrite: one writer updates one plan with last_known_revision set
// to the revision its own previous write returned, as an agent moving steps does: no read
// before the write, so each write is the one pipelined round trip of a plan file and its
// history entry ("history"; "nohistory" is the same with HistoryLimit -1: the plan file
// alone; "backend" is the backend's keeping compare-and-swap of a plan-sized file called
// directly, no Store: what the script and its round trip cost alone). Next to it, in 5
// interleaved rounds, the bare EVALSHA round trip; "ratio" is writes/s over EVALSHA/s.
//
//	go test -run '^$' -bench RedisKnownRevisionWrite -benchtime 2s
func BenchmarkRedisKnownRevisionWrite(b *testing.B) {
	for _, history := range []int{api.DefaultHistoryLimit, -1} {
		name := "history"
		if history < 0 {
			name = "nohistory"
		}
		b.Run(name, func(b *testing.B) { redisKnownRevisionWrite(b, history) })
	}
	b.Run("backend", redisKeepingSwap)
}

func redisKnownRevisionWrite(b *testing.B, history int) {
	ctx := context.Background()
	client, prefix, be := benchRedisBackend(b)
	s, err := plan.NewStore(&plan.StoreConfig{Backend: be, BaseDir: "/team/plans", HistoryLimit: history})
	if err != nil {
		b.Fatal(err)
	}
	p, err := s.Put(ctx, plan.Update{Name: "p", Content: ptrTo("- [ ] step 1")})
	if err != nil {
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
	reportAgainstEvalsha(b, client, prefix, write)
}

// redisKeepingSwap times CompareAndSwapKeeping on the backend alone: each call replaces a
// 300-byte file with the next and keeps the one it replaced under a fresh name, as the
// Store's change does.
func redisKeepingSwap(b *testing.B) {
	ctx := context.Background()
	client, prefix, be := benchRedisBackend(b)
	body := strings.Repeat("plan text ", 30)
	old := body + "0"
	if err := be.Write(ctx, &driver.WriteRequest{FilePath: "/team/plans/p.md", Content: old}); err != nil {
		b.Fatal(err)
	}
	seq := 0
	swap := func(int) error {
		seq++
		next := body + strconv.Itoa(seq)
		keep := "/team/plans/.history/p/" + strconv.Itoa(seq) + ".md"
		ok, err := be.CompareAndSwapKeeping(ctx, &driver.WriteRequest{FilePath: "/team/plans/p.md", Content: next}, &old, keep)
		if err == nil && !ok {
			err = fmt.Errorf("swap %d found another file", seq)
		}
		old = next
		return err
	}
	reportAgainstEvalsha(b, client, prefix, swap)
}

// benchRedisBackend is a Redis backend on the benchmark server under a fresh key prefix; the
// client closes when b ends.
func benchRedisBackend(b *testing.B) (*redis.Client, string, *redisbackend.Backend) {
	srv, _ := redisDeployments(b)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	b.Cleanup(func() { client.Close() })
	prefix := "bench:" + rand.Text()[:8] + ":"
	be, err := redisbackend.New(context.Background(), client, redisbackend.WithPrefix(prefix))
	if err != nil {
		b.Fatal(err)
	}
	return client, prefix, be
}

// reportAgainstEvalsha runs op b.N times next to as many bare EVALSHA calls, in 5
// interleaved rounds, and reports both rates and their ratio.
func reportAgainstEvalsha(b *testing.B, client *redis.Client, prefix string, op func(int) error) {
	ctx := context.Background()
	if err := noopScript.Run(ctx, client, []string{prefix + "{noop}"}).Err(); err != nil {
		b.Fatal(err)
	}
	evalsha := func(int) error { return noopScript.EvalSha(ctx, client, []string{prefix + "{noop}"}).Err() }
	const rounds = 5
	var writeTime, evalTime time.Duration
	b.ResetTimer()
	for r := range rounds {
		n := b.N/rounds + boolInt(r < b.N%rounds)
		writeTime += spread(b, 1, n, op)
		evalTime += spread(b, 1, n, evalsha)
	}
	writesPerSec, callsPerSec := float64(b.N)/writeTime.Seconds(), float64(b.N)/evalTime.Seconds()
	b.ReportMetric(writesPerSec, "writes/s")
	b.ReportMetric(callsPerSec, "evalsha/s")
	b.ReportMetric(writesPerSec/callsPerSec, "ratio")
}
