package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/localfs"
)

// TestEveryChangeCostsOneDurableWrite holds LocalBackend to the physical floor: each change
// (create, rewrite, status, step moves), prunes of the history included, syncs
// exactly the plan file and its folder once; reads sync nothing.
func TestEveryChangeCostsOneDurableWrite(t *testing.T) {
	ctx := document.WithActor(context.Background(), "worker")
	b := newLocal(t, t.TempDir())
	s := mustStore(t, StoreConfig{Backend: b, HistoryLimit: 10})
	syncs := func(what string, change func() error) {
		t.Helper()
		before := localfs.Syncs()
		require.NoError(t, change(), what)
		require.Equal(t, int64(2), localfs.Syncs()-before, what)
	}
	body := "# Ship\n\n- [ ] build\n- [ ] test\n"
	for i := range 3 {
		name := fmt.Sprintf("ship-%d", i)
		syncs("create", func() error { _, err := s.Put(ctx, Update{Name: name, Content: &body}); return err })
	}
	for i := range 60 { // several prunes of the kept history
		status := []string{"active", "paused"}[i%2]
		syncs("status update", func() error { _, err := s.SetStatus(ctx, "ship-0", status, nil); return err })
	}
	syncs("claim", func() error {
		_, _, err := s.MoveStep(ctx, StepMove{Name: "ship-0", State: document.StepInProgress})
		return err
	})
	syncs("complete", func() error {
		_, _, err := s.MoveStep(ctx, StepMove{Name: "ship-0", Step: 1, State: document.StepCompleted, Note: "green"})
		return err
	})
	rewrite := body + "- [ ] release\n"
	syncs("rewrite", func() error { _, err := s.Put(ctx, Update{Name: "ship-0", Content: &rewrite}); return err })
	before := localfs.Syncs()
	_, err := s.Get(ctx, "ship-0")
	require.NoError(t, err)
	_, err = s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	_, err = s.History(ctx, "ship-0")
	require.NoError(t, err)
	require.Zero(t, localfs.Syncs()-before, "reads")
}
