package engine

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// swapMemory is a MemoryBackend with conditional writes, as a driver.Swapper backend offers them.
type swapMemory struct {
	*memfs.Backend
	mu         sync.Mutex
	loseDelete bool // every CompareAndDelete reports a lost race
}

func (b *swapMemory) CompareAndSwap(ctx context.Context, req *driver.WriteRequest, old *string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cur, err := b.Read(ctx, &driver.ReadRequest{FilePath: req.FilePath})
	if (old == nil) != (err != nil) || (old != nil && cur.Content != *old) {
		return false, nil
	}
	return true, b.Write(ctx, req)
}

func (b *swapMemory) CompareAndDelete(ctx context.Context, req *driver.DeleteRequest, old string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cur, err := b.Read(ctx, &driver.ReadRequest{FilePath: req.FilePath})
	if b.loseDelete || err != nil || cur.Content != old {
		return false, nil
	}
	return true, b.Delete(ctx, req)
}

var _ driver.Swapper = (*swapMemory)(nil)

// storeBackends are the kinds of Backend the Store treats differently on delete.
func storeBackends() map[string]func() driver.Backend {
	return map[string]func() driver.Backend{
		"limited": func() driver.Backend { return memfs.New() },
		"swapper": func() driver.Backend { return &swapMemory{Backend: memfs.New()} },
		"plain":   func() driver.Backend { return plainBackend{memfs.New()} },
	}
}

// plainBackend hides every optional capability of the MemoryBackend.
type plainBackend struct{ m *memfs.Backend }

func (b plainBackend) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return b.m.LsInfo(ctx, req)
}
func (b plainBackend) Read(ctx context.Context, req *driver.ReadRequest) (*driver.FileContent, error) {
	return b.m.Read(ctx, req)
}
func (b plainBackend) Write(ctx context.Context, req *driver.WriteRequest) error {
	return b.m.Write(ctx, req)
}
func (b plainBackend) Delete(ctx context.Context, req *driver.DeleteRequest) error {
	return b.m.Delete(ctx, req)
}

// TestDeleteUndecodablePlanKeepsRevisionsFromRepeating: a plan at revision 5 whose file is
// then broken (a bad header line, or grown past the size limit) is deleted unguarded, the
// recovery its corrupt and too_large errors advise; the plan written again under that name
// starts at revision 6, so a writer still holding revision 1..5 of the old plan cannot
// overwrite the new one when it gets there. On a driver.Swapper backend the oversized file is
// deleted at all (its conditional delete needs the whole file).
func TestDeleteUndecodablePlanKeepsRevisionsFromRepeating(t *testing.T) {
	const maxContent = 64
	for kind, newBackend := range storeBackends() {
		for breakage, breakFile := range map[string]func(stored string) string{
			"corrupt":   func(stored string) string { return strings.Replace(stored, `title: "`, `title: `, 1) },
			"too_large": func(stored string) string { return stored + strings.Repeat("x", maxContent+headerAllowance) },
		} {
			t.Run(kind+"/"+breakage, func(t *testing.T) {
				ctx := context.Background()
				b := newBackend()
				s := mustStore(t, StoreConfig{Backend: b, MaxContentBytes: maxContent})
				body := "- [ ] a\n"
				for range 5 {
					_, err := s.Put(ctx, Update{Name: "p", Content: &body})
					require.NoError(t, err)
				}
				fc, err := b.Read(ctx, &driver.ReadRequest{FilePath: "/plans/p.md"})
				require.NoError(t, err)
				require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: "/plans/p.md", Content: breakFile(fc.Content)}))
				_, err = s.Get(ctx, "p")
				require.Equal(t, document.Code(breakage), document.CodeOf(err))

				_, err = s.Delete(ctx, "p", ptrTo(int64(5)))
				require.Equal(t, document.Code(breakage), document.CodeOf(err), "a guarded delete needs a plan that decodes")
				_, err = s.Delete(ctx, "p", nil)
				require.NoError(t, err)
				_, err = b.Read(ctx, &driver.ReadRequest{FilePath: "/plans/p.md"})
				require.True(t, IsNotExist(err), "deleted: %v", err)

				p, err := s.Put(ctx, Update{Name: "p", Content: &body, IfRevision: ptrTo(int64(0))})
				require.NoError(t, err)
				assert.EqualValues(t, 6, p.Revision)
				for stale := int64(1); stale <= 5; stale++ {
					_, err = s.Put(ctx, Update{Name: "p", Content: &body, IfRevision: &stale})
					assert.Equal(t, document.CodeRevisionConflict, document.CodeOf(err), "stale revision %d", stale)
				}
			})
		}
	}
}

// TestRevisionNeverWrapsAround: a plan file edited to the largest revision, or such a
// deletion record, makes writes fail as corrupt instead of storing a negative revision
// that no longer decodes.
func TestRevisionNeverWrapsAround(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	s := storeOn(t, b, "")
	stored := document.EncodePlan(&document.Plan{Title: "t", Status: "s", Revision: math.MaxInt64, Content: "x"})
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: "/plans/max.md", Content: stored}))
	body := "y"
	_, err := s.Put(ctx, Update{Name: "max", Content: &body})
	require.Equal(t, document.CodeCorrupt, document.CodeOf(err), "%v", err)
	fc, err := b.Read(ctx, &driver.ReadRequest{FilePath: "/plans/max.md"})
	require.NoError(t, err)
	require.Equal(t, stored, fc.Content)

	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: "/plans/.deleted/gone", Content: "9223372036854775807\n"}))
	_, err = s.Put(ctx, Update{Name: "gone", Content: &body})
	require.Equal(t, document.CodeCorrupt, document.CodeOf(err), "%v", err)
	_, err = b.Read(ctx, &driver.ReadRequest{FilePath: "/plans/gone.md"})
	require.True(t, IsNotExist(err))
}

// TestDeleteLosingEveryRaceIsABackendError: a driver.Swapper whose conditional deletes keep failing
// ends the delete with an *Error (backend_error), like a write that keeps losing.
func TestDeleteLosingEveryRaceIsABackendError(t *testing.T) {
	ctx := context.Background()
	b := &swapMemory{Backend: memfs.New()}
	s := storeOn(t, b, "")
	body := "x"
	_, err := s.Put(ctx, Update{Name: "p", Content: &body})
	require.NoError(t, err)
	b.loseDelete = true
	_, err = s.Delete(ctx, "p", nil)
	var pe *document.Error
	require.ErrorAs(t, err, &pe)
	require.Equal(t, document.CodeBackendError, pe.Code)
}

// OnChange runs outside the Store's locks after a delete too: it may write the same plan.
func TestOnChangeAfterDeleteRunsOutsideTheLocks(t *testing.T) {
	ctx := context.Background()
	var s *Store
	var written error
	s, err := NewStore(&StoreConfig{Backend: memfs.New(), OnChange: func(ctx context.Context, c Change) {
		if c.Action != document.ActionDelete {
			return
		}
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		body := "# Again\n- [ ] a\n"
		_, written = s.Put(wctx, Update{Name: c.Name, Content: &body})
	}})
	require.NoError(t, err)
	body := teamBody
	_, err = s.Put(ctx, Update{Name: "team", Content: &body})
	require.NoError(t, err)
	_, err = s.Delete(ctx, "team", nil)
	require.NoError(t, err)
	assert.NoError(t, written, "the delete's OnChange re-created the plan")
}
