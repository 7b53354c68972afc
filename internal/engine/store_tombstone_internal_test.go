package engine

import (
	"context"
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
