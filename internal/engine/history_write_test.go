package engine

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// historyLists counts the listings of history folders.
type historyLists struct {
	driver.Backend
	lists atomic.Int64
}

func (h *historyLists) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	if strings.Contains(req.Path, "/.history/") {
		h.lists.Add(1)
	}
	return h.Backend.LsInfo(ctx, req)
}

func (h *historyLists) Unwrap() driver.Backend { return h.Backend }

// historyEntries lists the paths in a plan's history folder.
func historyEntries(t *testing.T, b driver.Backend, name string) []string {
	t.Helper()
	return lsPaths(t, b, "/plans/.history/"+name)
}

// A Store that writes every revision of a plan itself prunes its history from the entries
// it knows, listing the history folder only on every fourth prune where other processes may
// leave entries behind, and only once on a MemoryBackend; either way it keeps exactly the
// bounded history.
func TestPruneListsTheHistoryOnlyEveryFewPrunes(t *testing.T) {
	local := newLocal(t, t.TempDir())
	for _, tc := range []struct {
		name          string
		backend       driver.Backend
		lists, listed int64 // at least, at most
	}{
		{"local", local, 2, 16/knownListEvery + 1},
		{"memory", memfs.New(), 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			counted := &historyLists{Backend: tc.backend}
			s := storeOn(t, counted, "")
			_, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] one\n")})
			require.NoError(t, err)
			const writes = 16 * DefaultHistoryLimit / 2 // 16 prunes
			for i := range writes {
				_, err := s.SetStatus(ctx, "p", fmt.Sprint("s", i), nil)
				require.NoError(t, err)
			}
			assert.GreaterOrEqual(t, counted.lists.Load(), tc.lists)
			assert.LessOrEqual(t, counted.lists.Load(), tc.listed)
			assert.LessOrEqual(t, len(historyEntries(t, counted, "p")), DefaultHistoryLimit+DefaultHistoryLimit/2)
			h, err := s.History(ctx, "p")
			require.NoError(t, err)
			require.Len(t, h, DefaultHistoryLimit)
			for i, r := range h {
				assert.EqualValues(t, writes+1-i, r.Revision)
			}
		})
	}
}

// An entry another writer left behind (a crashed process's) is removed within
// knownListEvery prunes, though the Store never wrote it.
func TestStrayEntryGoesWithinFourPrunes(t *testing.T) {
	ctx := context.Background()
	mem := newLocal(t, t.TempDir()) // storage other processes share
	s := storeOn(t, mem, "")
	_, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] one\n")})
	require.NoError(t, err)
	for i := range DefaultHistoryLimit { // the first prune lists; the Store knows the rest
		_, err := s.SetStatus(ctx, "p", fmt.Sprint("s", i), nil)
		require.NoError(t, err)
	}
	stray := "/plans/.history/p/3-0123456789ab"
	require.NoError(t, mem.Write(ctx, &driver.WriteRequest{FilePath: stray, Content: "left by a crashed writer"}))
	for i := range knownListEvery * DefaultHistoryLimit / 2 {
		_, err := s.SetStatus(ctx, "p", fmt.Sprint("t", i), nil)
		require.NoError(t, err)
	}
	assert.NotContains(t, historyEntries(t, mem, "p"), stray)
}

// Two writers that share nothing in memory take turns on one plan: each prune of either
// keeps the bounded history whole, whatever the other wrote meanwhile.
func TestHistoryStaysWholeWhenWritersTakeTurns(t *testing.T) {
	ctx := context.Background()
	mem := memfs.New()
	here := storeOn(t, mem, "")
	there := mustStore(t, StoreConfig{Backend: plainBackend{mem}}) // shares no Store state with here
	_, err := here.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] one\n")})
	require.NoError(t, err)
	rev := int64(1)
	for i := range 10 * DefaultHistoryLimit {
		w := here
		if i%7 == 3 {
			w = there
		}
		p, err := w.SetStatus(ctx, "p", fmt.Sprint("s", i), &rev)
		require.NoError(t, err)
		rev = p.Revision
		if i%25 == 24 {
			h, err := here.History(ctx, "p")
			require.NoError(t, err)
			require.Len(t, h, int(min(rev, DefaultHistoryLimit)), "after write %d", i)
			for j, r := range h {
				require.EqualValues(t, rev-int64(j), r.Revision)
			}
		}
	}
	assert.LessOrEqual(t, len(historyEntries(t, mem, "p")), DefaultHistoryLimit+DefaultHistoryLimit/2+1)
}

// A plan deleted and written again under its name, by this Store or one that shares
// nothing with it, keeps revisions rising and shows only the new plan's history, bounded,
// while the prunes go by what the Store knows.
func TestPruneAfterDeleteAndRecreateShowsOnlyTheNewPlan(t *testing.T) {
	ctx := context.Background()
	mem := memfs.New()
	here := storeOn(t, mem, "")
	there := storeOn(t, plainBackend{mem}, "")
	last := int64(0)
	for round, s := range []*Store{here, there, here} {
		p, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] one\n")})
		require.NoError(t, err)
		require.Greater(t, p.Revision, last, "round %d", round)
		first := p.Revision
		for i := range 2 * DefaultHistoryLimit {
			p, err = here.SetStatus(ctx, "p", fmt.Sprint("r", round, "-", i), nil)
			require.NoError(t, err)
		}
		h, err := here.History(ctx, "p")
		require.NoError(t, err)
		require.Len(t, h, DefaultHistoryLimit)
		for j, r := range h {
			require.EqualValues(t, p.Revision-int64(j), r.Revision)
			require.GreaterOrEqual(t, r.Revision, first)
		}
		last = p.Revision
		_, err = s.Delete(ctx, "p", nil)
		require.NoError(t, err)
	}
	assert.Empty(t, historyEntries(t, mem, "p"), "a deleted plan's history goes with it")
}
