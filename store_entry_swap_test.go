package plan_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// entrySwapping is a driver.EntrySwapper over a MemoryBackend that counts its requests; with
// lose set, the next swap loses its race.
type entrySwapping struct {
	*plan.MemoryBackend
	swaps, writes atomic.Int32
	lose          atomic.Bool
}

func (b *entrySwapping) CompareAndSwapWithEntry(ctx context.Context, req *plan.WriteRequest, old *string, entry *plan.WriteRequest) (bool, error) {
	b.swaps.Add(1)
	if b.lose.Swap(false) {
		return false, nil
	}
	ok, err := b.CompareAndSwap(ctx, req, old)
	if ok && err == nil {
		err = b.MemoryBackend.Write(ctx, entry)
	}
	return ok, err
}

func (b *entrySwapping) Write(ctx context.Context, req *plan.WriteRequest) error {
	b.writes.Add(1)
	return b.MemoryBackend.Write(ctx, req)
}

// On a backend that writes a plan and its history entry in one request, every change is that
// one request (no separate entry write), history is as complete as elsewhere, and a swap that
// loses its race leaves no entry: the retry's is the only one of its revision.
func TestEntrySwapperWritesPlanAndEntryInOneRequest(t *testing.T) {
	ctx := context.Background()
	b := &entrySwapping{MemoryBackend: plan.NewMemoryBackend()}
	s := storeOn(t, b, "")
	_, err := s.Put(ctx, plan.Update{Name: "ship", Content: ptrTo("- [ ] build\n- [ ] test\n")})
	require.NoError(t, err)
	_, err = s.SetStatus(ctx, "ship", "active", nil)
	require.NoError(t, err)
	b.lose.Store(true)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 1, State: plan.StepCompleted})
	require.NoError(t, err)
	assert.EqualValues(t, 4, b.swaps.Load(), "create, status, a lost move and its retry")
	assert.Zero(t, b.writes.Load(), "no separate entry write")
	revs, err := s.History(ctx, "ship")
	require.NoError(t, err)
	require.Len(t, revs, 3)
	for i, r := range revs {
		assert.EqualValues(t, 3-i, r.Revision)
	}
	assert.Equal(t, plan.ActionStep, revs[0].Action)
	infos, err := b.LsInfo(ctx, &plan.LsInfoRequest{Path: "/plans/.history/ship"})
	require.NoError(t, err)
	n := 0
	for _, fi := range infos {
		if strings.HasPrefix(fi.Path[strings.LastIndex(fi.Path, "/")+1:], "3-") {
			n++
		}
	}
	assert.Equal(t, 1, n, "one entry of revision 3")
}
