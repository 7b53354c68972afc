package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/einoplan/plan/api"

	"github.com/einoplan/plan"
)

// BenchmarkHistoryWriteCost times a status change of the 60-step plan with history kept
// (the default, 50 revisions) and with none, one after the other in one run, on
// MemoryBackend and LocalBackend.
func BenchmarkHistoryWriteCost(b *testing.B) {
	ctx := context.Background()
	for _, kind := range []string{"memory", "local"} {
		for _, limit := range []int{api.DefaultHistoryLimit, -1} {
			label := fmt.Sprintf("%s/history=%d", kind, max(limit, 0))
			b.Run(label, func(b *testing.B) {
				var backend plan.Backend = plan.NewMemoryBackend()
				if kind == "local" {
					lb, err := plan.NewLocalBackend(b.TempDir())
					if err != nil {
						b.Fatal(err)
					}
					defer lb.Close()
					backend = lb
				}
				s, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HistoryLimit: limit})
				if err != nil {
					b.Fatal(err)
				}
				body := migrationPlan()
				if _, err := s.Put(ctx, plan.Update{Name: editPlanName, Content: &body}); err != nil {
					b.Fatal(err)
				}
				i := 0
				for b.Loop() {
					i++
					if _, err := s.SetStatus(ctx, editPlanName, fmt.Sprintf("s%d", i%2), nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
