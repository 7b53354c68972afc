package engine

import (
	"context"
	"fmt"
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

// gatedBackend holds every Write of a file whose path ends in gated until open is closed,
// after saying so on entered: a writer stalled inside its plan's lock.
type gatedBackend struct {
	driver.Backend
	gated   string
	entered chan struct{}
	open    chan struct{}
	once    sync.Once
}

func newGated(b driver.Backend, gated string) *gatedBackend {
	return &gatedBackend{Backend: b, gated: gated, entered: make(chan struct{}), open: make(chan struct{})}
}

// release lets stalled and later writes through; it may be called more than once.
func (g *gatedBackend) release() {
	select {
	case <-g.open:
	default:
		close(g.open)
	}
}

func (g *gatedBackend) Write(ctx context.Context, req *driver.WriteRequest) error {
	if strings.HasSuffix(req.FilePath, g.gated) {
		g.once.Do(func() { close(g.entered) })
		<-g.open
	}
	return g.Backend.Write(ctx, req)
}

func lockTestBackends(t *testing.T) map[string]driver.Backend {
	local := newLocal(t, t.TempDir())
	return map[string]driver.Backend{"memory": memfs.New(), "local": local}
}

// A writer stalled inside plan a's lock holds up writes to a, in this Store and in another
// Store on the same storage, and never writes, deletes or history of another plan.
func TestDistinctPlansDoNotWait(t *testing.T) {
	for kind, inner := range lockTestBackends(t) {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			gated := newGated(inner, "/a.md")
			t.Cleanup(gated.release)
			s := mustStore(t, StoreConfig{Backend: gated, HistoryLimit: 5})
			other := mustStore(t, StoreConfig{Backend: inner, HistoryLimit: 5})

			stalled := make(chan error, 1)
			go func() {
				_, err := s.Put(ctx, Update{Name: "a", Content: ptrTo("- [ ] a\n")})
				stalled <- err
			}()
			select {
			case <-gated.entered:
			case <-time.After(10 * time.Second):
				t.Fatal("the write of a never reached the backend")
			}

			// Plan b goes through create, guarded update and delete, within a deadline
			// that only a lock wait for a could exceed.
			bctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			for _, st := range []*Store{s, other} {
				p, err := st.Put(bctx, Update{Name: "b", Content: ptrTo("- [ ] b\n")})
				require.NoError(t, err)
				p, err = st.Put(bctx, Update{Name: "b", Status: "done", IfRevision: &p.Revision})
				require.NoError(t, err)
				rev, err := st.Delete(bctx, "b", &p.Revision)
				require.NoError(t, err)
				assert.Equal(t, p.Revision, rev)
			}
			got, err := other.Put(bctx, Update{Name: "b", Content: ptrTo("again\n"), IfRevision: ptrTo(int64(0))})
			require.NoError(t, err)
			assert.Equal(t, int64(5), got.Revision, "revisions go on after delete and re-create")

			// Plan a itself stays locked, for both Stores.
			for _, st := range []*Store{s, other} {
				short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
				_, err = st.Put(short, Update{Name: "a", Content: ptrTo("other\n")})
				cancel()
				assert.Equal(t, document.CodeCanceled, document.CodeOf(err), "a write to the locked plan waits")
			}
			select {
			case err := <-stalled:
				t.Fatalf("the stalled write returned early: %v", err)
			default:
			}
			gated.release()
			require.NoError(t, <-stalled)
			a, err := other.Get(ctx, "a")
			require.NoError(t, err)
			assert.Equal(t, int64(1), a.Revision)
			assert.Equal(t, "- [ ] a\n", a.Content)
			hist, err := other.History(ctx, "a")
			require.NoError(t, err)
			assert.Len(t, hist, 1)
			assert.Zero(t, s.shared.names.Len(), "no name lock outlives its holders")
		})
	}
}

// 10,000 names written, some of their locks waited for and abandoned, leave no entry behind.
func TestNameLocksBounded(t *testing.T) {
	ctx := context.Background()
	s := storeOn(t, memfs.New(), "")
	const names, workers = 10000, 8
	for _, err := range inParallel(workers, func(w int) error {
		for i := w; i < names; i += workers {
			if _, err := s.Put(ctx, Update{Name: fmt.Sprintf("plan-%05d", i), Content: ptrTo("x\n")}); err != nil {
				return err
			}
		}
		return nil
	}) {
		require.NoError(t, err)
	}
	listing, err := s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	assert.Len(t, listing.Plans, names)
	assert.Zero(t, s.shared.names.Len(), "idle names keep no lock entry")

	// Waiters that give up drop their reference too.
	release, err := s.shared.names.Lock(ctx, "held")
	require.NoError(t, err)
	for range 3 {
		short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		_, err := s.Put(short, Update{Name: "held", Content: ptrTo("x\n")})
		cancel()
		assert.Equal(t, document.CodeCanceled, document.CodeOf(err))
	}
	assert.Equal(t, 1, s.shared.names.Len())
	release()
	assert.Zero(t, s.shared.names.Len())
	_, err = s.Put(ctx, Update{Name: "held", Content: ptrTo("x\n")})
	require.NoError(t, err)
	assert.Zero(t, s.shared.names.Len())
}

// folderLocker is a driver.Locker whose lock covers the folder and which counts its holders.
type folderLocker struct {
	*memfs.Backend
	mu            sync.Mutex
	holders, most int
	lockCalls     int
}

func (f *folderLocker) Lock(ctx context.Context, dir string) (func(), error) {
	f.mu.Lock()
	f.holders++
	f.lockCalls++
	f.most = max(f.most, f.holders)
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.holders--
		f.mu.Unlock()
	}, nil
}

// A driver.Locker that is not a driver.PlanLocker still sees one Lock call at a time per folder, as before.
func TestFolderLockerCalledOneAtATime(t *testing.T) {
	ctx := context.Background()
	fl := &folderLocker{Backend: memfs.New()}
	s := storeOn(t, fl, "")
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				_, err := s.Put(ctx, Update{Name: fmt.Sprintf("p%d", (w+i)%5), Content: ptrTo(fmt.Sprint(i))})
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, fl.most, "a folder-wide driver.Locker is never held twice in one process")
	assert.Equal(t, 400, fl.lockCalls)
	assert.Zero(t, s.shared.names.Len())
}
