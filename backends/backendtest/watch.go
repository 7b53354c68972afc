package backendtest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// WatchEveryRevision runs four workers through a 12-step plan on backend while a Store
// watches it, and checks what Store.Watch promises where history is kept: each revision
// delivered once, in order, with its action and the worker that made it, and no resync.
// Backends with a push feed (driver.Watcher) and polled ones alike must pass it.
func WatchEveryRevision(t *testing.T, backend plan.Backend) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	var body strings.Builder
	for i := range 12 {
		fmt.Fprintf(&body, "- [ ] step %d\n", i+1)
	}
	content := body.String()
	_, err = s.Put(plan.WithActor(ctx, "planner"), plan.Update{Name: "team", Content: &content})
	require.NoError(t, err)
	watcher, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	ch, err := watcher.Watch(ctx, plan.WatchOptions{Interval: 2 * time.Millisecond})
	require.NoError(t, err)

	moves := map[int64]string{} // revision → worker
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		name := fmt.Sprintf("worker-%d", w+1)
		wg.Go(func() {
			store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
			if !assert.NoError(t, err) {
				return
			}
			for {
				p, step, err := store.MoveStep(plan.WithActor(ctx, name), plan.StepMove{Name: "team", State: plan.StepInProgress, By: name})
				if plan.CodeOf(err) == plan.CodeIllegalTransition {
					return // no pending step left
				}
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				moves[p.Revision] = name
				mu.Unlock()
				p, _, err = store.MoveStep(plan.WithActor(ctx, name), plan.StepMove{Name: "team", Step: step.Number, State: plan.StepCompleted, By: name})
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				moves[p.Revision] = name
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	last := int64(1 + 2*12)

	var got []plan.Change
	for len(got) == 0 || got[len(got)-1].Revision < last {
		select {
		case c := <-ch:
			got = append(got, c)
		case <-ctx.Done():
			t.Fatalf("watch stopped after %d changes: %+v", len(got), got)
		}
	}
	for i, c := range got {
		require.NotEqual(t, plan.ActionResync, c.Action, "change %d: history keeps every revision", i)
		assert.EqualValues(t, i+2, c.Revision, "every revision once, in order")
		assert.Equal(t, plan.ActionStep, c.Action)
		assert.Equal(t, moves[c.Revision], c.Actor, "revision %d", c.Revision)
		assert.Equal(t, "planner", c.Author, "the author stays who wrote the plan")
	}
}
