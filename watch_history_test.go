package plan_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
)

// A watcher misses nothing that history keeps: with four workers moving steps of one plan
// on a LocalBackend (polled), every revision arrives once, in order, as a step move by the
// worker who made it, with no resync.
func TestWatchDeliversEveryKeptRevisionInOrder(t *testing.T) {
	backend, err := plan.NewLocalBackend(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	backendtest.WatchEveryRevision(t, backend)
}

// A watcher in another Store names who deleted a plan, as the deleting Store's OnChange does.
func TestWatchedDeleteNamesWhoDeleted(t *testing.T) {
	local, err := plan.NewLocalBackend(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { local.Close() })
	for name, backend := range map[string]plan.Backend{"memory": plan.NewMemoryBackend(), "local": local} {
		t.Run(name, func(t *testing.T) {
			var heard plan.Change
			s, err := plan.NewStore(&plan.StoreConfig{Backend: backend, OnChange: func(_ context.Context, c plan.Change) { heard = c }})
			require.NoError(t, err)
			watcher, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			body := "# P\n- [ ] a\n"
			_, err = s.Put(plan.WithActor(ctx, "ana"), plan.Update{Name: "p", Content: &body})
			require.NoError(t, err)
			ch, err := watcher.Watch(ctx, plan.WatchOptions{Interval: 10 * time.Millisecond})
			require.NoError(t, err)
			_, err = s.Delete(plan.WithActor(ctx, "bob"), "p", nil)
			require.NoError(t, err)
			require.Equal(t, "bob", heard.Actor)
			select {
			case c := <-ch:
				assert.Equal(t, plan.Change{Name: "p", Action: plan.ActionDelete, Revision: 1, Title: "P", Status: "draft",
					Author: "ana", Actor: "bob"}, c)
			case <-time.After(3 * time.Second):
				t.Fatal("the delete was not delivered")
			}
		})
	}
}
