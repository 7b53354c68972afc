package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
)

// A mark left behind the plan file (a crash between the plan's write and the mark's) never
// makes the plan read as rolled back, and the next write raises it past the file.
func TestAMarkBehindThePlanFileIsNoRollback(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	p := putApproved(t, ctx, s, "p", "- [ ] a\n")
	key, err := s.approvalKey(ctx, false)
	require.NoError(t, err)
	writeFile(t, backend, s.markPath("p"), markContent(key, "p", planMark{rev: p.Revision - 1}))

	got, err := storeOn(t, backend, "").Get(ctx, "p")
	require.NoError(t, err)
	assert.NotNil(t, got.Approval)
	next, err := s.Revoke(ctx, "p")
	require.NoError(t, err)
	m, err := s.readMark(ctx, "p")
	require.NoError(t, err)
	assert.True(t, m.valid)
	assert.Equal(t, next.Revision, m.rev)
}

// A mark is never lowered: a raise to an older revision, or to a live plan at the revision
// it was deleted at, leaves it as it was; a deletion and the approval requirement stay.
func TestAMarkIsNeverLowered(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	require.NoError(t, s.raiseMark(ctx, "p", 5, false, true, "1k tokens", nil))
	require.NoError(t, s.raiseMark(ctx, "p", 3, false, false, "9k tokens", nil))
	m, err := s.readMark(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, planMark{exists: true, valid: true, rev: 5, requires: true, budget: "1k tokens", raw: m.raw}, m)
	require.NoError(t, s.raiseMark(ctx, "p", 4, true, false, "", nil))
	m, err = s.readMark(ctx, "p")
	require.NoError(t, err)
	assert.True(t, m.deleted, "a file older than the mark deleted: the plan is gone at the mark")
	assert.Equal(t, int64(5), m.rev)
	require.NoError(t, s.raiseMark(ctx, "p", 5, false, false, "", nil))
	m, err = s.readMark(ctx, "p")
	require.NoError(t, err)
	assert.True(t, m.deleted && m.requires)
}

// A plan nobody governs costs no mark and no header seal; once a person sets a budget it
// has both, and keeps its mark through later writes of any kind.
func TestOnlyAGovernedPlanIsMarked(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	p, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] a\n")})
	require.NoError(t, err)
	assert.Empty(t, p.HeaderSeal)
	assert.NotContains(t, lsNames(t, backend, "/"), ".plans.approval-marks")
	assert.NotContains(t, lsNames(t, backend, "/"), ".plans.approval-key", "no key is made for a plan nobody governs")

	p, err = s.Put(ctx, Update{Name: "p", Budget: "2k tokens"})
	require.NoError(t, err)
	assert.NotEmpty(t, p.HeaderSeal)
	p, err = s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] a\n- [ ] b\n")})
	require.NoError(t, err)
	m, err := s.readMark(ctx, "p")
	require.NoError(t, err)
	assert.True(t, m.valid)
	assert.Equal(t, p.Revision, m.rev)
	assert.Equal(t, "2k tokens", m.budget)
}

// A mark written without the key (planted, or a stray) makes no plan read as rolled back,
// and makes the plan governed: its unsealed header is not honoured.
func TestAMarkWithoutTheStoresSealIsNoRollback(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	p := putApproved(t, ctx, s, "p", "- [ ] a\n")
	writeFile(t, backend, s.markPath("p"), "---\nrevision: 99\ndeleted: true\nseal: \"00\"\n---\n")

	got, err := storeOn(t, backend, "").Get(ctx, "p")
	require.NoError(t, err)
	assert.NotNil(t, got.Approval, "the file is sealed: its approval holds")
	next, err := s.Put(ctx, Update{Name: "p", Status: "active"})
	require.NoError(t, err)
	assert.Equal(t, p.Revision+1, next.Revision)
	m, err := s.readMark(ctx, "p")
	require.NoError(t, err)
	assert.True(t, m.valid, "the next write replaced it")
}

// putBackAfterARevoke is a Store on a MemoryBackend whose plan p, approved, was revoked and
// its approved file (returned) then put back by hand.
func putBackAfterARevoke(t *testing.T) (*memfs.Backend, *Store, string) {
	t.Helper()
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	putApproved(t, ctx, s, "p", "- [ ] a\n")
	old := readFile(t, backend, s.planPath("p"))
	_, err := s.Revoke(ctx, "p")
	require.NoError(t, err)
	writeFile(t, backend, s.planPath("p"), old)
	return backend, s, old
}

// Every backend keeps a mark through the Backend interface: a file put back after a revoke
// is rolled back on the in-memory backend as on disk, and a deleted plan's file put back too.
func TestAPlanFilePutBackIsRolledBackInMemory(t *testing.T) {
	ctx := context.Background()
	backend, s, old := putBackAfterARevoke(t)
	_, err := s.Get(ctx, "p")
	assert.Equal(t, document.CodeRolledBack, document.CodeOf(err), "%v", err)

	_, err = s.Delete(ctx, "p", nil)
	require.NoError(t, err)
	writeFile(t, backend, s.planPath("p"), old)
	_, err = storeOn(t, backend, "").Get(ctx, "p")
	assert.Equal(t, document.CodeRolledBack, document.CodeOf(err), "%v", err)
	require.NoError(t, backend.Delete(ctx, &driver.DeleteRequest{FilePath: s.planPath("p")}))
	again, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] b\n")})
	require.NoError(t, err)
	assert.Equal(t, int64(4), again.Revision, "past revision 3, where the plan was deleted")
}

// A waiting run written into a plan file by hand is no run a person is asked by.
func TestAWaitingMarkWrittenByHandIsNone(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	_, err := s.Put(ctx, Update{Name: "p", Content: ptrTo("- [ ] a\n")})
	require.NoError(t, err)
	raw := readFile(t, backend, s.planPath("p"))
	writeFile(t, backend, s.planPath("p"), strings.Replace(raw, "\n---\n", "\nwaiting: \"1 2026-11-27T10:00:00Z planner\"\n---\n", 1))
	got, err := s.Get(ctx, "p")
	require.NoError(t, err)
	assert.Nil(t, got.Waiting)

	marked, err := s.MarkWaiting(ctx, "p", got.Revision, "planner", "")
	require.NoError(t, err)
	got, err = storeOn(t, backend, "").Get(ctx, "p")
	require.NoError(t, err)
	require.NotNil(t, got.Waiting, "the Store's own waiting mark is sealed")
	assert.Equal(t, *marked.Waiting, *got.Waiting)
}

// Check reports a plan file put back by hand as what it is, for a person to look at.
func TestCheckReportsAPlanFilePutBack(t *testing.T) {
	ctx := context.Background()
	_, s, _ := putBackAfterARevoke(t)

	report, err := s.Check(ctx)
	require.NoError(t, err)
	require.Len(t, report.Plans, 1)
	assert.Contains(t, report.Plans[0].Error, "older than revision 3 the Store wrote last")
}

// A plan of 0.1.0 that this release approved before the migration keeps its approval and
// its history through the conversion, which names another file as the one it replaced: the
// seals are computed anew over it.
func TestMigrateKeepsTheSealsOfThisRelease(t *testing.T) {
	ctx := context.Background()
	backend := format1Plan(t)
	s := storeOn(t, backend, "")
	approved, err := s.Approve(ctx, "old", 2, "ana")
	require.NoError(t, err)

	report, err := s.Migrate(ctx, "old")
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 1}, report.Converted)
	assert.True(t, report.Rewritten)
	got, err := storeOn(t, backend, "").Get(ctx, "old")
	require.NoError(t, err)
	require.NotNil(t, got.Approval, "the conversion kept the approval")
	assert.Equal(t, *approved.Approval, *got.Approval)
	hist, err := s.History(ctx, "old")
	require.NoError(t, err)
	assert.Len(t, hist, 3, "the history's root still counts")
}

// A mark keeps the open comments it is raised with, sealed: the answered ones are left out,
// a raise to an older revision keeps the ones it has, and comment lines edited in the mark
// void it.
func TestAMarkKeepsTheOpenCommentsSealed(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	at := s.Now().UTC()
	open := document.Comment{ID: "c1", Step: 1, Author: "ana", At: at, Revision: 2, Text: "Which changelog?"}
	answered := open
	answered.ID, answered.AnsweredAt, answered.AnsweredBy = "c2", &at, "worker"
	require.NoError(t, s.raiseMark(ctx, "p", 3, false, true, "", []document.Comment{open, answered}))
	require.NoError(t, s.raiseMark(ctx, "p", 2, false, false, "", nil))
	m, err := s.readMark(ctx, "p")
	require.NoError(t, err)
	assert.True(t, m.valid)
	assert.Equal(t, []document.Comment{open}, m.comments)

	writeFile(t, backend, s.markPath("p"), strings.Replace(m.raw, "Which changelog?", "Nothing to see", 1))
	m, err = s.readMark(ctx, "p")
	require.NoError(t, err)
	assert.False(t, m.valid, "a comment edited in the mark")
}
