package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Under the approval gate a rewrite that drops an approval cannot start steps nobody approved,
// and a rewrite that only rewords or annotates finished steps is not refused.
func TestApprovalGateLetsNoRewriteStartAnUnapprovedStep(t *testing.T) {
	ctx := context.Background()
	gated := document.WithStepGate(ctx)
	s := storeOn(t, memfs.New(), "")
	_, err := s.Put(gated, Update{Name: "p", Content: ptrTo("- [ ] A\n- [ ] B\n")})
	require.NoError(t, err)
	_, err = s.Approve(ctx, "p", 1, "boss")
	require.NoError(t, err)

	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("- [x] never approved\n")})
	assert.Equal(t, document.CodeNotApproved, document.CodeOf(err), "replacing an approved plan's steps with done ones")

	_, _, err = s.updateStep(gated, "p", 1, document.StepCompleted, "", nil)
	require.NoError(t, err)
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("Intro.\n- [x] A\n- [ ] B\n")})
	require.NoError(t, err, "a rewrite that starts nothing")
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("Intro.\n- [x] A — shipped in v2\n- [ ] B\n")})
	require.NoError(t, err, "a note on a finished step starts nothing")
	_, err = s.Put(gated, Update{Name: "p", Content: ptrTo("Intro.\n- [x] A — shipped in v2\n- [x] B\n")})
	assert.Equal(t, document.CodeNotApproved, document.CodeOf(err), "B is not approved to finish")
}

// approvalPlan is a plan a person approves; approvalRevised adds a step to it.
const (
	approvalPlan    = "# Release\n- [ ] Write the changelog\n- [ ] Tag the release\n"
	approvalRevised = "# Release\n- [ ] Write the changelog\n- [ ] Tag the release\n- [ ] Roll back if the smoke test fails\n"
)

func approvedStore(t *testing.T, root string) (*Store, *[]Change) {
	t.Helper()
	var changes []Change
	store, err := NewStore(&StoreConfig{Backend: newLocal(t, root),
		OnChange: func(_ context.Context, c Change) { changes = append(changes, c) }})
	require.NoError(t, err)
	require.NotNil(t, putApproved(t, context.Background(), store, "release", approvalPlan).Approval)
	return store, &changes
}

// Store.Approve records who approved which revision as a write, only for the revision the
// person saw, and refuses bad arguments; Revoke clears an approval as a write, and revoking
// what is not approved writes nothing.
func TestStoreApproveAndRevoke(t *testing.T) {
	ctx := context.Background()
	store, changes := approvedStore(t, t.TempDir())
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.EqualValues(t, 2, p.Revision, "an approval is a write")
	assert.Equal(t, approvalPlan, p.Content)
	assert.EqualValues(t, 1, p.Approval.Revision)
	assert.WithinDuration(t, time.Now(), p.Approval.At, time.Minute)

	_, err = store.Approve(ctx, "release", 1, "bo")
	assert.Equal(t, document.CodeRevisionConflict, document.CodeOf(err), "only the revision the person saw")
	for _, bad := range []struct {
		name, by string
		rev      int64
		code     document.Code
	}{
		{"release", "", 2, document.CodeInvalidArgument},
		{"release", "  ", 2, document.CodeInvalidArgument},
		{"release", strings.Repeat("b", 1025), 2, document.CodeInvalidArgument},
		{"release", "bo", 0, document.CodeInvalidArgument},
		{"ghost", "bo", 1, document.CodeNotFound},
		{"Bad", "bo", 1, document.CodeInvalidArgument},
	} {
		_, err = store.Approve(ctx, bad.name, bad.rev, bad.by)
		assert.Equal(t, bad.code, document.CodeOf(err), "%+v", bad)
	}

	p, err = store.Revoke(ctx, "release")
	require.NoError(t, err)
	assert.Nil(t, p.Approval)
	assert.EqualValues(t, 3, p.Revision)
	p, err = store.Revoke(ctx, "release")
	require.NoError(t, err, "revoking what is not approved is a no-op")
	assert.EqualValues(t, 3, p.Revision, "and writes nothing")
	_, err = store.Revoke(ctx, "ghost")
	assert.Equal(t, document.CodeNotFound, document.CodeOf(err))

	var actions []document.Action
	for _, c := range *changes {
		actions = append(actions, c.Action)
	}
	assert.Equal(t, []document.Action{document.ActionWrite, document.ActionApprove, document.ActionRevoke}, actions)
}

// TestApprovalKeptAndRevoked: what keeps an approval and what revokes it.
func TestApprovalKeptAndRevoked(t *testing.T) {
	ctx := context.Background()
	rewrite := func(body string) func(s *Store) error {
		return func(s *Store) error {
			_, err := s.Put(ctx, Update{Name: "release", Content: &body})
			return err
		}
	}
	for _, tc := range []struct {
		name   string
		change func(s *Store) error
		kept   bool
	}{
		{"step move with a note", func(s *Store) error {
			_, _, err := s.MoveStep(ctx, StepMove{Name: "release", Step: 1, State: document.StepCompleted, Note: "see CHANGES.md"})
			return err
		}, true},
		{"status", func(s *Store) error { _, err := s.SetStatus(ctx, "release", "in-progress", nil); return err }, true},
		{"title", func(s *Store) error {
			_, err := s.Put(ctx, Update{Name: "release", Title: "Release 2"})
			return err
		}, true},
		// A rewrite is not a step move: marking "drop the database" pending again by hand,
		// say, must not keep an approval of it as skipped.
		{"rewrite with markers only changed", rewrite(strings.Replace(approvalPlan, "- [ ]", "- [X]", 1)), false},
		{"the same body again", rewrite(approvalPlan), true},
		{"step added", rewrite(approvalRevised), false},
		{"step reworded", rewrite(strings.Replace(approvalPlan, "changelog", "release notes", 1)), false},
		{"steps reordered", rewrite("# Release\n- [ ] Tag the release\n- [ ] Write the changelog\n"), false},
		{"step removed", rewrite("# Release\n- [ ] Write the changelog\n"), false},
		{"other text", rewrite(approvalPlan + "\nRisks: none.\n"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			store, _ := approvedStore(t, root)
			require.NoError(t, tc.change(store))
			p, err := store.Get(ctx, "release")
			require.NoError(t, err)
			assert.Equal(t, tc.kept, p.Approval != nil)
			// A fresh Store on the same folder reads the same.
			again, _ := NewStore(&StoreConfig{Backend: newLocal(t, root)})
			q, err := again.Get(ctx, "release")
			require.NoError(t, err)
			assert.Equal(t, tc.kept, q.Approval != nil)
			assert.Equal(t, tc.kept, document.Summarize(q).Approval != nil)
		})
	}
}

// TestApprovalOnDisk: a plan file without approval lines (written before approvals
// existed) reads as not approved; a hand edit of the body, or of the approval lines, makes
// it not approved without making it unreadable, and so does a marker flipped by hand (which
// steps are done is part of what was approved).
func TestApprovalOnDisk(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	store, _ := approvedStore(t, root)
	file := filepath.Join(root, "plans", "release.md")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	approved := string(raw)
	require.Contains(t, approved, "approved_revision: 1\n")
	require.Contains(t, approved, "approved_hash: \"")

	old := "---\ntitle: \"Release\"\nstatus: \"draft\"\nauthor: \"\"\nrevision: 4\nupdated_at: \"2026-11-21T22:00:00Z\"\n---\n" + approvalPlan
	for label, tc := range map[string]struct {
		content string
		kept    bool
	}{
		"old file":           {old, false},
		"body edited":        {strings.Replace(approved, "Tag the release", "Tag and publish", 1), false},
		"marker flipped":     {strings.Replace(approved, "- [ ] Tag", "- [x] Tag", 1), false},
		"revision malformed": {strings.Replace(approved, "approved_revision: 1", "approved_revision: one", 1), false},
		"hash changed":       {strings.Replace(approved, "approved_hash: \"", "approved_hash: \"0", 1), false},
		"by not a string":    {strings.Replace(approved, "approved_by: \"ana\"", "approved_by: ana", 1), false},
		"time malformed":     {strings.Replace(approved, "approved_at: \"", "approved_at: \"x", 1), false},
		"hash missing": {strings.Join(slicesFilter(strings.SplitAfter(approved, "\n"), func(l string) bool {
			return !strings.HasPrefix(l, "approved_hash:")
		}), ""), false},
	} {
		require.NoError(t, os.WriteFile(file, []byte(tc.content), 0o644), label)
		p, err := store.Get(ctx, "release")
		require.NoError(t, err, label)
		assert.Equal(t, tc.kept, p.Approval != nil, label)
	}
}

func slicesFilter(in []string, keep func(string) bool) []string {
	var out []string
	for _, s := range in {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// The history names who approved, who revoked (WithActor) and who handed a step over.
func TestHistoryNamesApproverRevokerAndTakeover(t *testing.T) {
	ctx := context.Background()
	s := mustStore(t, StoreConfig{Backend: memfs.New(), DefaultAuthor: "planner"})
	body := "# Ship\n- [ ] build\n"
	putApproved(t, ctx, s, "ship", body)
	_, _, err := s.MoveStep(ctx, StepMove{Name: "ship", Step: 1, State: document.StepInProgress, By: "worker-1"})
	require.NoError(t, err)
	_, _, err = s.MoveStep(document.WithActor(ctx, "bob"), StepMove{Name: "ship", Step: 1, State: document.StepInProgress, By: "worker-2", Takeover: true})
	require.NoError(t, err)
	_, err = s.Revoke(document.WithActor(ctx, "carl"), "ship")
	require.NoError(t, err)
	h, err := s.History(ctx, "ship")
	require.NoError(t, err)
	var who []string
	for _, r := range h {
		who = append(who, string(r.Action)+":"+r.Author)
	}
	assert.Equal(t, []string{"revoke:carl", "step:bob", "step:worker-1", "approve:ana", "write:planner"}, who)
}

// DecodePlan, and Summarize of what it returns, never report an approval: only a Store,
// which holds the key, can check a seal, so a file whose approval lines carry a forged seal
// reads as not approved everywhere.
func TestDecodePlanNeverReportsAnApprovalItCannotVerify(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	s := storeOn(t, b, "")
	putApproved(t, ctx, s, "ship", "- [ ] deploy\n")
	fc, err := b.Read(ctx, &driver.ReadRequest{FilePath: "/plans/ship.md"})
	require.NoError(t, err)
	real := fc.Content
	require.Contains(t, real, "approved_hash: ")
	i := strings.Index(real, "approved_hash: ")
	j := i + strings.IndexByte(real[i:], '\n')
	forged := real[:i] + `approved_hash: "forged"` + real[j:]

	for name, raw := range map[string]string{"forged": forged, "genuine": real} {
		d, err := document.DecodePlan("ship", raw)
		require.NoError(t, err, name)
		assert.Nil(t, d.Approval, "%s: DecodePlan cannot verify a seal", name)
		assert.Nil(t, document.Summarize(d).Approval, "%s: nor can Summarize of what it decoded", name)
		assert.NotContains(t, document.EncodePlan(d), "approved_by", "%s: nor does EncodePlan write one back", name)
	}
	got, err := s.Get(ctx, "ship")
	require.NoError(t, err)
	require.NotNil(t, got.Approval, "the Store checks the genuine seal")
	assert.Equal(t, "ana", got.Approval.By)
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: "/plans/ship.md", Content: forged}))
	got, err = s.Get(ctx, "ship")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "nor does the Store report a forged one")
}
