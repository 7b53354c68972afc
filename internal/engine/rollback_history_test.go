package engine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
)

// threeRevisions is a Store on b that wrote plan p three times, and each revision's file.
func threeRevisions(t *testing.T, b driver.Backend) (*Store, map[int64]string) {
	t.Helper()
	s := storeOn(t, b, "")
	files := map[int64]string{}
	for i := range 3 {
		p, err := s.Put(context.Background(), Update{Name: "p", Content: ptrTo(strings.Repeat("- [ ] a\n", i+1))})
		require.NoError(t, err)
		files[p.Revision] = readFile(t, b, "/plans/p.md")
	}
	return s, files
}

// Reads of a plan nobody governs at the revision this process wrote or read last list no
// history folder, and a file put back older than that revision is reported without one.
func TestReadsOfAnUngovernedPlanThisProcessKnowsListNoHistory(t *testing.T) {
	ctx := context.Background()
	b := &historyLists{Backend: newLocal(t, t.TempDir())}
	s, files := threeRevisions(t, b)
	before := b.lists.Load()
	for range 5 {
		_, err := s.Get(ctx, "p")
		require.NoError(t, err)
	}
	assert.Equal(t, before, b.lists.Load(), "reads at the revision this process wrote")

	writeFile(t, b, "/plans/p.md", files[2])
	_, err := s.Get(ctx, "p")
	require.Equal(t, document.CodeRolledBack, document.CodeOf(err), "%v", err)
	assert.Equal(t, int64(3), err.(*document.Error).CurrentRevision)
	assert.Equal(t, before, b.lists.Load(), "a file older than the revision this process wrote")
}

// Where history is kept just before the write (a Backend with no keeping capability), a
// file put back byte for byte by one revision is reported when read and refused on write,
// as put back or interrupted; a person's delete recovers it, and the plan written again
// starts past every revision it reached.
func TestAFilePutBackByOneRevisionIsCaughtWhereHistoryIsKeptBefore(t *testing.T) {
	ctx := context.Background()
	b := plainBackend{memfs.New()}
	s, files := threeRevisions(t, b)
	writeFile(t, b, "/plans/p.md", files[2])

	for _, read := range []func() error{
		func() error { _, err := s.Get(ctx, "p"); return err },
		func() error { _, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] b\n")}); return err },
	} {
		s.forgetEntries("p") // as a process that never wrote the plan
		err := read()
		require.Equal(t, document.CodeRolledBack, document.CodeOf(err), "%v", err)
		assert.Equal(t, document.ReasonPutBackOrInterrupted, reasonOf(err))
	}
	assert.Equal(t, files[2], readFile(t, b, "/plans/p.md"), "nothing written on top of it")
	_, err := s.Delete(ctx, "p", nil)
	require.NoError(t, err)
	again, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] b\n")})
	require.NoError(t, err)
	assert.Greater(t, again.Revision, int64(3))
}

// failingPlanWrites is a Backend with no keeping capability whose writes of plan files fail
// while fail is set, after the history entry was kept.
type failingPlanWrites struct {
	plainBackend
	fail atomic.Bool
}

func (f *failingPlanWrites) Write(ctx context.Context, req *driver.WriteRequest) error {
	if f.fail.Load() && strings.HasSuffix(req.FilePath, ".md") {
		return errors.New("disk full")
	}
	return f.plainBackend.Write(ctx, req)
}

// A write that fails after keeping its history entry just before leaves the plan in
// service: the entry goes again, so the revision it kept reads as what it is, the file.
func TestAWriteThatFailsAfterKeepingItsEntryLeavesThePlanInService(t *testing.T) {
	ctx := context.Background()
	b := &failingPlanWrites{plainBackend: plainBackend{memfs.New()}}
	s, _ := threeRevisions(t, b)
	b.fail.Store(true)
	_, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] b\n")})
	require.Error(t, err)
	b.fail.Store(false)

	for _, st := range []*Store{s, storeOn(t, b, "")} {
		got, err := st.Get(ctx, "p")
		require.NoError(t, err)
		assert.Equal(t, int64(3), got.Revision)
	}
	next, err := storeOn(t, b, "").Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] b\n")})
	require.NoError(t, err)
	assert.Equal(t, int64(4), next.Revision)
}

// A write interrupted between keeping its entry and writing the file (a crash) leaves the
// trace of a file put back by one revision: it is reported as put back or interrupted, and a
// person's delete recovers it past the revision the write was about to write.
func TestAnInterruptedWriteIsReportedAndADeleteRecoversIt(t *testing.T) {
	ctx := context.Background()
	b := plainBackend{memfs.New()}
	s, files := threeRevisions(t, b)
	writeFile(t, b, s.entryPath("p", 3, entrySum(files[3])), files[3]) // the entry, then the crash
	s.forgetEntries("p")                                               // a process started since

	_, err := storeOn(t, b, "").Get(ctx, "p")
	require.Equal(t, document.CodeRolledBack, document.CodeOf(err), "%v", err)
	assert.Equal(t, document.ReasonPutBackOrInterrupted, reasonOf(err))
	assert.Contains(t, err.Error(), "interrupted")
	_, err = storeOn(t, b, "").Delete(ctx, "p", nil)
	require.NoError(t, err)
	again, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] b\n")})
	require.NoError(t, err)
	assert.Greater(t, again.Revision, int64(4))
}

// A read of a plan while a write of this process is between keeping its entry and writing
// the file never reports the plan as put back: it waits for the write and reads its file.
func TestAReadDuringAWriteKeptBeforeIsNoRollback(t *testing.T) {
	ctx := context.Background()
	inner := plainBackend{memfs.New()}
	threeRevisions(t, inner)
	gated := newGated(inner, "/p.md")
	t.Cleanup(gated.release)
	s := storeOn(t, gated, "")
	wrote := make(chan error, 1)
	go func() {
		_, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] b\n")})
		wrote <- err
	}()
	<-gated.entered // the entry of revision 3 is kept; the file is not written yet
	s.forgetEntries("p")
	read := make(chan error, 1)
	go func() {
		got, err := storeOn(t, gated, "").Get(ctx, "p")
		if err == nil && got.Revision != 4 {
			err = errors.New("read a revision the write replaced")
		}
		read <- err
	}()
	time.Sleep(20 * time.Millisecond)
	gated.release()
	require.NoError(t, <-wrote)
	require.NoError(t, <-read)
}
