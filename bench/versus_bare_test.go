package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einoplan/plan"
)

// guardedWriter returns write, which makes writer w's next guarded write: a Get and a Put
// at the revision read, again after each conflict, of plan "pNN" in the Store storeFor(w, i)
// gives for plan i; writer w's k-th write is to plan (w + k) mod plans. Conflicts counts the
// conflicts met.
func guardedWriter(ctx context.Context, writers, plans int, storeFor func(w, i int) *plan.Store) (write func(w int) error, conflicts *atomic.Int64) {
	conflicts = new(atomic.Int64)
	next := make([]int, writers) // writer w's next k
	for w := range next {
		next[w] = w
	}
	write = func(w int) error {
		i := next[w] % plans
		next[w]++
		s, n := storeFor(w, i), fmt.Sprintf("p%02d", i)
		for {
			p, err := s.Get(ctx, n)
			if err != nil {
				return err
			}
			_, err = s.Put(ctx, plan.Update{Name: n, Content: ptrTo(fmt.Sprintf("- [ ] step %d", p.Revision+1)), IfRevision: ptrTo(p.Revision)})
			if plan.CodeOf(err) != plan.CodeRevisionConflict {
				return err
			}
			conflicts.Add(1)
		}
	}
	return write, conflicts
}

// reportVersusBare times b.N guarded writes and as many bare calls, in alternating rounds
// spread over writers, and reports both rates (the bare one as unit), their ratio and the
// conflicts per write.
func reportVersusBare(b *testing.B, writers int, write, bare func(w int) error, unit string, conflicts *atomic.Int64) {
	const rounds = 5
	var writeTime, bareTime time.Duration
	var calls int
	b.ResetTimer()
	for r := range rounds {
		n := b.N/rounds + boolInt(r < b.N%rounds)
		writeTime += spread(b, writers, n, write)
		bareTime += spread(b, writers, n, bare)
		calls += n
	}
	writesPerSec := float64(b.N) / writeTime.Seconds()
	callsPerSec := float64(calls) / bareTime.Seconds()
	b.ReportMetric(writesPerSec, "writes/s")
	b.ReportMetric(callsPerSec, unit)
	b.ReportMetric(writesPerSec/callsPerSec, "ratio")
	b.ReportMetric(float64(conflicts.Load())/float64(b.N), "conflicts/write")
}
