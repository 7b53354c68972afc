package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
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

// strayRace stalls the first read of b's tombstone, after it failed, until a's delete is
// done, and a's clearing of the tombstones' folder until that read failed.
type strayRace struct {
	driver.Backend
	armed        atomic.Bool
	bRead, aDone chan struct{}
	readOnce     sync.Once
	clearOnce    sync.Once
}

func (r *strayRace) Read(ctx context.Context, req *filesystem.ReadRequest) (*filesystem.FileContent, error) {
	fc, err := r.Backend.Read(ctx, req)
	if req.FilePath == "/plans/.deleted/b" && r.armed.Load() {
		r.readOnce.Do(func() {
			close(r.bRead)
			<-r.aDone
		})
	}
	return fc, err
}

func (r *strayRace) Delete(ctx context.Context, req *plantask.DeleteRequest) error {
	if req.FilePath == "/plans/.deleted" {
		r.clearOnce.Do(func() {
			select {
			case <-r.bRead:
			case <-time.After(5 * time.Second):
			}
		})
	}
	return r.Backend.Delete(ctx, req)
}

// Deletes of two plans that both find a stray file where the tombstones' folder goes clear
// it once between them: b's delete never removes the folder a's delete has just made, so a
// re-created a goes on from its last revision.
func TestStrayTombstoneFolderClearedOnce(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	b := newLocal(t, root)
	race := &strayRace{Backend: b, bRead: make(chan struct{}), aDone: make(chan struct{})}
	s := storeOn(t, race, "")
	for _, name := range []string{"a", "b"} {
		for range 3 {
			_, err := s.Put(ctx, Update{Name: name, Content: ptrTo("x")})
			require.NoError(t, err)
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "plans", ".deleted"), []byte("stray"), 0o600))
	race.armed.Store(true)
	bDone := make(chan error, 1)
	go func() {
		_, err := s.Delete(ctx, "b", nil)
		bDone <- err
	}()
	select {
	case <-race.bRead:
	case <-time.After(10 * time.Second):
		t.Fatal("b's delete never read its tombstone")
	}
	_, err := s.Delete(ctx, "a", nil)
	close(race.aDone)
	require.NoError(t, err)
	require.NoError(t, <-bDone)
	for _, name := range []string{"a", "b"} {
		p, err := s.Put(ctx, Update{Name: name, Content: ptrTo("again")})
		require.NoError(t, err)
		assert.EqualValues(t, 4, p.Revision, "%s: revisions go on after delete", name)
	}
}

// headerRevision reads the last revision line of a plan file's header, and reports none for a
// header that is malformed, CRLF, negative, not a number or past the allowance.
func TestHeaderRevision(t *testing.T) {
	for raw, want := range map[string]int64{
		"---\ntitle: broken\nrevision: 7\n---\n":                           7,
		"---\r\nrevision: 7\r\n---\r\n":                                    -1,
		"---\nrevision: 3\nrevision: 9\n":                                  9,
		"---\n---\nrevision: 4\n":                                          -1,
		"revision: 4\n":                                                    -1,
		"---\nrevision: -4\n---\n":                                         -1,
		"---\nrevision: x\n---\n":                                          -1,
		"---\n" + strings.Repeat("t", headerAllowance) + "\nrevision: 2\n": -1,
	} {
		got, ok := headerRevision(raw)
		if want < 0 {
			assert.False(t, ok, "%.40q: %d", raw, got)
		} else {
			assert.True(t, ok, "%.40q", raw)
			assert.Equal(t, want, got, "%.40q", raw)
		}
	}
}

// reviewedRelease is a plan whose deploy waits for its security review.
const reviewedRelease = "# Release\n- [ ] Run the security review\n- [ ] Deploy to production (after 1)\n- [ ] Tell the team\n"

// A plan never written under the requirement is written again without it.
func TestADeletedPlanWithoutTheRequirementComesBackWithoutIt(t *testing.T) {
	ctx := context.Background()
	s := storeOn(t, memfs.New(), "")
	_, err := s.Put(ctx, Update{Name: "notes", Content: ptrTo(reviewedRelease)})
	require.NoError(t, err)
	_, err = s.Delete(document.WithActor(ctx, "ana"), "notes", nil)
	require.NoError(t, err)
	p, err := s.Put(ctx, Update{Name: "notes", Content: ptrTo("# Notes\n- [x] done already\n")})
	require.NoError(t, err)
	assert.False(t, p.RequiresApproval)
	assert.EqualValues(t, 2, p.Revision)
}
