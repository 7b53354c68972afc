package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/einoplan/plan"
)

// benchBody is a plan of about 2 KB.
var benchBody = "# Release\n" + strings.Repeat("- [ ] a step of the plan, with some words\n", 50)

// BenchmarkGuardedWrite is one guarded write of a 2 KB plan through a Store, the operation
// every tool call that changes a plan makes. scripts/bench-guarded.sh compares it with an
// earlier commit, side by side in one run.
func BenchmarkGuardedWrite(b *testing.B) {
	for _, bc := range []struct {
		name    string
		backend func(b *testing.B) plan.Backend
	}{
		{"memory", func(*testing.B) plan.Backend { return plan.NewMemoryBackend() }},
		{"local", func(b *testing.B) plan.Backend { return newLocal(b, b.TempDir()) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			s, err := plan.NewStore(&plan.StoreConfig{Backend: bc.backend(b)})
			if err != nil {
				b.Fatal(err)
			}
			p, err := s.Put(ctx, plan.Update{Name: "bench", Content: &benchBody})
			if err != nil {
				b.Fatal(err)
			}
			rev := p.Revision
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				p, err := s.Put(ctx, plan.Update{Name: "bench", Content: &benchBody, IfRevision: &rev})
				if err != nil {
					b.Fatal(err)
				}
				rev = p.Revision
			}
		})
	}
}
