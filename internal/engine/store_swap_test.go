package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/localfs"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keepingSwapping is a driver.KeepingSwapper over a MemoryBackend that counts its requests;
// with lose set, the next swap loses its race.
type keepingSwapping struct {
	*memfs.Backend
	swaps, writes atomic.Int32
	lose          atomic.Bool
}

func (b *keepingSwapping) CompareAndSwap(ctx context.Context, req *driver.WriteRequest, old *string) (bool, error) {
	return b.CompareAndSwapKeeping(ctx, req, old, "")
}

func (b *keepingSwapping) CompareAndSwapKeeping(ctx context.Context, req *driver.WriteRequest, old *string, keep string) (bool, error) {
	b.swaps.Add(1)
	if b.lose.Swap(false) {
		return false, nil
	}
	ok, err := b.Backend.CompareAndSwap(ctx, req, old)
	if ok && err == nil && old != nil && keep != "" {
		err = b.Backend.Write(ctx, &driver.WriteRequest{FilePath: keep, Content: *old})
	}
	return ok, err
}

func (b *keepingSwapping) KeepsFor(v any) bool { return v == any(b) }

func (b *keepingSwapping) Write(ctx context.Context, req *driver.WriteRequest) error {
	b.writes.Add(1)
	return b.Backend.Write(ctx, req)
}

// entryNames lists the names in a plan's history folder, sorted.
func entryNames(t *testing.T, b driver.Backend, name string) []string {
	t.Helper()
	out := lsNames(t, b, "/plans/.history/"+name)
	sort.Strings(out)
	return out
}

// On a backend that keeps the replaced plan file in the swap itself, every change is that
// one request (no separate entry write), history is as complete as elsewhere, and a swap
// that loses its race keeps nothing: the retry keeps the one entry of its revision.
func TestAKeepingSwapperWritesEachChangeInOneRequest(t *testing.T) {
	ctx := context.Background()
	b := &keepingSwapping{Backend: memfs.New()}
	s := shipOn(t, b, "- [ ] build\n- [ ] test\n")
	_, err := s.SetStatus(ctx, "ship", "active", nil)
	require.NoError(t, err)
	b.lose.Store(true)
	_, _, err = s.MoveStep(ctx, StepMove{Name: "ship", Step: 1, State: document.StepCompleted})
	require.NoError(t, err)
	assert.EqualValues(t, 4, b.swaps.Load(), "create, status, a lost move and its retry")
	assert.Zero(t, b.writes.Load(), "no separate entry write")
	revs, err := s.History(ctx, "ship")
	require.NoError(t, err)
	require.Len(t, revs, 3)
	for i, r := range revs {
		assert.EqualValues(t, 3-i, r.Revision)
	}
	assert.Equal(t, []document.Action{document.ActionStep, document.ActionStatus, document.ActionWrite}, []document.Action{revs[0].Action, revs[1].Action, revs[2].Action})
	names := entryNames(t, b, "ship")
	require.Len(t, names, 2, "the two replaced revisions, once each")
	assert.True(t, strings.HasPrefix(names[0], "1.") && strings.HasPrefix(names[1], "2."), "%v", names)
}

// casCounting changes what CompareAndSwap does on an embedded MemoryBackend; it offers no
// CompareAndSwapKeeping of its own.
type casCounting struct {
	*memfs.Backend
	swaps atomic.Int32
}

func (b *casCounting) CompareAndSwap(ctx context.Context, req *driver.WriteRequest, old *string) (bool, error) {
	b.swaps.Add(1)
	return b.Backend.CompareAndSwap(ctx, req, old)
}

// A wrapper that changes CompareAndSwap over an embedded MemoryBackend is never bypassed by
// the MemoryBackend's own keeping swap: every change goes through the wrapper, and history is
// kept by writing each replaced file beside it.
func TestAWrapperOfCompareAndSwapIsNeverBypassedToKeepHistory(t *testing.T) {
	ctx := context.Background()
	b := &casCounting{Backend: memfs.New()}
	s := shipOn(t, b, "- [ ] build\n")
	for _, st := range []string{"a", "b"} {
		_, err := s.SetStatus(ctx, "ship", st, nil)
		require.NoError(t, err)
	}
	assert.EqualValues(t, 3, b.swaps.Load())
	revs, err := s.History(ctx, "ship")
	require.NoError(t, err)
	assert.Len(t, revs, 3)
	assert.Len(t, entryNames(t, b, "ship"), 2)
}

// writeCounting changes what Write does on an embedded LocalBackend; it offers no
// WriteKeeping of its own.
type writeCounting struct {
	*localfs.Backend
	writes atomic.Int32
}

func (w *writeCounting) Write(ctx context.Context, req *driver.WriteRequest) error {
	w.writes.Add(1)
	return w.Backend.Write(ctx, req)
}

// A wrapper that changes Write over an embedded LocalBackend is never bypassed by the
// LocalBackend's own keeping write: every change goes through the wrapper's Write.
func TestAWrapperOfWriteIsNeverBypassedToKeepHistory(t *testing.T) {
	ctx := context.Background()
	b := &writeCounting{Backend: newLocal(t, t.TempDir())}
	s := shipOn(t, b, "- [ ] build\n")
	before := b.writes.Load()
	_, err := s.SetStatus(ctx, "ship", "active", nil)
	require.NoError(t, err)
	assert.Greater(t, b.writes.Load(), before)
	revs, err := s.History(ctx, "ship")
	require.NoError(t, err)
	assert.Len(t, revs, 2)
}

// landsThenFails: the first compare-and-swap lands, then "another machine" deletes the
// plan through a different storage value (no shared process lock, as across machines),
// and the transport reports an error, so the outcome is uncertain.
type landsThenFails struct {
	*memfs.Backend
	calls   atomic.Int32
	between func()
}

func (b *landsThenFails) CompareAndSwap(ctx context.Context, req *driver.WriteRequest, old *string) (bool, error) {
	ok, err := b.Backend.CompareAndSwap(ctx, req, old)
	if b.calls.Add(1) == 1 && ok && err == nil {
		b.between()
		return false, errors.New("i/o timeout")
	}
	return ok, err
}

// A create whose outcome is uncertain (the swap landed, the transport reported an error) and
// whose plan another machine deleted meanwhile is never retried at a revision the tombstone
// already holds: revisions never repeat.
func TestUncertainCreateRetryNeverRepeatsARevision(t *testing.T) {
	ctx := context.Background()
	mem := memfs.New()
	other := storeOn(t, struct{ driver.Backend }{noUnwrap{mem}}, "") // another machine
	b := &landsThenFails{Backend: mem}
	b.between = func() {
		_, err := other.Delete(ctx, "release", ptrTo[int64](1))
		require.NoError(t, err)
	}
	s := storeOn(t, b, "")
	p, err := s.Put(ctx, Update{Name: "release", Content: ptrTo("- [ ] second incarnation?\n"), IfRevision: ptrTo[int64](0)})
	if err == nil {
		assert.NotEqualValues(t, 1, p.Revision, "revision 1 was already used by the deleted plan (%q)", p.Content)
	} else {
		t.Log(err)
	}
}

// noUnwrap hides mem's identity and capabilities: a different storage value.
type noUnwrap struct{ b driver.Backend }

func (n noUnwrap) LsInfo(ctx context.Context, r *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return n.b.LsInfo(ctx, r)
}

func (n noUnwrap) Read(ctx context.Context, r *driver.ReadRequest) (*driver.FileContent, error) {
	return n.b.Read(ctx, r)
}

func (n noUnwrap) Write(ctx context.Context, r *driver.WriteRequest) error { return n.b.Write(ctx, r) }

func (n noUnwrap) Delete(ctx context.Context, r *driver.DeleteRequest) error {
	return n.b.Delete(ctx, r)
}

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
