package plan_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/einoplan/plan"
)

// BenchmarkList is List of 1,000 unchanged plans on a MemoryBackend, each with a step in
// progress and a ready one, as every agent's list_plans and every board page makes it: the
// summaries come from the list cache, and each one handed out is the caller's own.
//
//	go test -run '^$' -bench List -benchmem
func BenchmarkList(b *testing.B) {
	ctx := context.Background()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	if err != nil {
		b.Fatal(err)
	}
	body := "- [x] build\n- [ ] test\n- [ ] ship (after 1)\n"
	for i := range 1000 {
		name := fmt.Sprintf("p%04d", i)
		if _, err := s.Put(ctx, plan.Update{Name: name, Content: &body}); err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.MoveStep(ctx, plan.StepMove{Name: name, Step: 2, State: plan.StepInProgress, By: "w1"}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.ListPage(ctx, plan.ListOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := s.ListPage(ctx, plan.ListOptions{})
		if err != nil || len(l.Plans) != 1000 {
			b.Fatal(len(l.Plans), err)
		}
	}
}
