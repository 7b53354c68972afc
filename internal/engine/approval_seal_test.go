package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/localfs"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An approval cannot be forged by someone who can write the plan file but has no key: a
// plain hash of the body, an approval header copied from another plan, or an edited body
// all read as not approved, while the Store's own approval reads back on every Store of
// the storage.
func TestAnApprovalCannotBeForgedWithoutTheKey(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	for _, name := range []string{"real", "other"} {
		_, err := s.Put(ctx, Update{Name: name, Content: ptrTo("# " + name + "\n- [ ] Publish to prod\n")})
		require.NoError(t, err)
	}
	_, err := s.Approve(ctx, "real", 1, "ana")
	require.NoError(t, err)
	fresh := storeOn(t, backend, "")
	p, err := fresh.Get(ctx, "real")
	require.NoError(t, err)
	require.NotNil(t, p.Approval, "the Store's approval reads back on another Store")

	read := func(name string) string {
		fc, err := backend.Read(ctx, &driver.ReadRequest{FilePath: "/plans/" + name + ".md", Offset: 1, Limit: 1 << 20})
		require.NoError(t, err)
		return fc.Content
	}
	write := func(name, raw string) {
		require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/" + name + ".md", Content: raw}))
	}
	approvedLines := regexp.MustCompile(`(?m)^approved_[a-z]+: .*\n`).FindAllString(read("real"), -1)
	require.Len(t, approvedLines, 4)

	// A plain SHA-256 of the body, as a forger would compute it.
	other := read("other")
	body := other[strings.Index(other[4:], "---\n")+8:]
	sum := sha256.Sum256([]byte(strings.ReplaceAll(body, "[ ]", "[ ]")))
	forged := strings.Replace(other, "---\n#", "approved_revision: 1\napproved_by: \"mallory\"\napproved_at: \"2026-01-01T00:00:00Z\"\napproved_hash: \""+hex.EncodeToString(sum[:])+"\"\n---\n#", 1)
	write("other", forged)
	got, err := fresh.Get(ctx, "other")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "a plain hash is no approval")

	// The real plan's approval lines copied onto another plan.
	write("other", strings.Replace(other, "---\n#", strings.Join(approvedLines, "")+"---\n#", 1))
	got, err = fresh.Get(ctx, "other")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "an approval is bound to its plan")

	// The approved plan's body edited in place.
	write("real", strings.Replace(read("real"), "Publish to prod", "Delete prod", 1))
	got, err = fresh.Get(ctx, "real")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "an edited body is not what was approved")
	_, _, err = fresh.MoveStep(ctx, StepMove{Name: "real", Step: 1, State: document.StepInProgress})
	require.NoError(t, err)
}

// Approval lines copied back from an earlier revision never undo a revoke: the seal binds
// the approval to the revision of the file that carries it.
func TestARevokedApprovalStaysRevokedWhateverIsCopiedBack(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	putApproved(t, ctx, s, "p", "# P\n- [ ] deploy to prod\n")
	read := func() string {
		fc, err := backend.Read(ctx, &driver.ReadRequest{FilePath: "/plans/p.md", Offset: 1, Limit: 1 << 20})
		require.NoError(t, err)
		return fc.Content
	}
	approvedLines := regexp.MustCompile(`(?m)^approved_[a-z]+: .*\n`).FindAllString(read(), -1)
	require.Len(t, approvedLines, 4)

	_, err := s.Revoke(document.WithActor(ctx, "ana"), "p")
	require.NoError(t, err)
	forged := strings.Replace(read(), "\nupdated_at:", "\n"+strings.Join(approvedLines, "")+"updated_at:", 1)
	require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/p.md", Content: forged}))
	got, err := s.Get(ctx, "p")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "ana revoked it")

	// The Store's own approval still reads back after moves, each sealed anew.
	_, err = s.Approve(ctx, "p", got.Revision, "ana")
	require.NoError(t, err)
	_, _, err = s.MoveStep(ctx, StepMove{Name: "p", Step: 1, State: document.StepInProgress, By: "w1"})
	require.NoError(t, err)
	fresh := storeOn(t, backend, "")
	got, err = fresh.Get(ctx, "p")
	require.NoError(t, err)
	assert.NotNil(t, got.Approval)
}

// A key file the Store did not write never blocks approvals: plans read as not approved
// until the next approval replaces it.
func TestAStrayApprovalKeyIsReplacedByTheNextApproval(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/.approval-key", Content: "not a key"}))
	s := storeOn(t, backend, "")
	p := putApproved(t, ctx, s, "p", "- [ ] a\n")
	require.NotNil(t, p.Approval)
	got, err := s.Get(ctx, "p")
	require.NoError(t, err)
	assert.NotNil(t, got.Approval)
}

// The key approvals are sealed with lives beside the plans folder, never in it, so nothing
// that may read the plans reads it; on the local disk it is private to the user (mode 0600)
// whatever modes the backend gives plans.
func TestTheApprovalKeyLivesOutsideThePlansFolder(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	backend := newLocal(t, root, localfs.WithPermissions(0o755, 0o644))
	s := storeOn(t, backend, "")
	putApproved(t, ctx, s, "p", "- [ ] a\n")

	fi, err := os.Stat(filepath.Join(root, ".plans.approval-key"))
	require.NoError(t, err, "the key is beside the plans folder")
	if runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	}
	require.NoError(t, filepath.WalkDir(filepath.Join(root, "plans"), func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		assert.NotContains(t, d.Name(), "approval-key", p)
		return nil
	}))
}

// A host-held key (StoreConfig.ApprovalKey) seals approvals and no key file is written;
// Stores with the same key agree, a Store with another key or with none reads the plan as
// not approved.
func TestAGivenApprovalKeyIsUsedAndNoKeyFileIsWritten(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	key := []byte(strings.Repeat("k", 32))
	s := mustStore(t, StoreConfig{Backend: backend, ApprovalKey: key})
	putApproved(t, ctx, s, "p", "- [ ] a\n")
	key[0] = 'x' // the Store keeps its own copy

	same := mustStore(t, StoreConfig{Backend: backend, ApprovalKey: []byte(strings.Repeat("k", 32))})
	got, err := same.Get(ctx, "p")
	require.NoError(t, err)
	require.NotNil(t, got.Approval, "the same key agrees")
	assert.Equal(t, "ana", got.Approval.By)

	other := mustStore(t, StoreConfig{Backend: backend, ApprovalKey: []byte(strings.Repeat("o", 32))})
	got, err = other.Get(ctx, "p")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "another key does not")
	none := storeOn(t, backend, "")
	got, err = none.Get(ctx, "p")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "nor does a key file")

	for _, p := range []string{"/.plans.approval-key", "/plans/.approval-key"} {
		_, err := backend.Read(ctx, &driver.ReadRequest{FilePath: p, Offset: 1, Limit: 10})
		assert.Error(t, err, "%s: no key file", p)
	}
	_, err = NewStore(&StoreConfig{Backend: backend, ApprovalKey: []byte("short")})
	assert.Error(t, err, "a key under 32 bytes is refused")
}

// approvedUnderALegacyKey is a LocalBackend on root holding plan p with body, approved by a
// Store given key, and that key written where 0.1.0 kept it, inside the plans folder (the
// path returned last).
func approvedUnderALegacyKey(t *testing.T, key []byte, body string) (root string, backend *localfs.Backend, legacy string) {
	t.Helper()
	root = t.TempDir()
	backend = newLocal(t, root)
	putApproved(t, context.Background(), mustStore(t, StoreConfig{Backend: backend, ApprovalKey: key}), "p", body)
	legacy = filepath.Join(root, "plans", ".approval-key")
	require.NoError(t, os.WriteFile(legacy, []byte(hex.EncodeToString(key)+"\n"), 0o600))
	return root, backend, legacy
}

// A key inside the plans folder, where 0.1.0 kept it, is adopted only by a person's
// migration that asks for it, of a folder that still holds a plan file in 0.1.0's format;
// the report names the approvals it makes valid.
func TestAKeyOf010IsAdoptedOnlyWhenAsked(t *testing.T) {
	ctx := context.Background()
	key := []byte(strings.Repeat("e", 32))
	root, backend, legacy := approvedUnderALegacyKey(t, key, "- [ ] a\n")
	file := filepath.Join(root, "plans", "p.md")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(raw), "format: 2\n", "", 1)), 0o600)) // as 0.1.0 wrote it

	s := storeOn(t, backend, "")
	got, err := s.Get(ctx, "p")
	require.NoError(t, err)
	assert.Nil(t, got.Approval, "a key inside the plans folder is not taken by itself")
	r, err := s.Migrate(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, "/plans/.approval-key", r.KeyNotAdopted, "not asked: not adopted")
	got, err = s.Get(ctx, "p")
	require.NoError(t, err)
	assert.Nil(t, got.Approval)
	_, err = os.Stat(legacy)
	require.NoError(t, err, "it stays for a person to see (planctl check) and adopt")

	// The plan file is in the current format now: write it back as 0.1.0 had it.
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(raw), "format: 2\n", "", 1)), 0o600))
	adopting := mustStore(t, StoreConfig{Backend: backend, AdoptLegacyKey: true})
	r, err = adopting.Migrate(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, "/plans/.approval-key", r.AdoptedKey)
	require.Len(t, r.Validated, 1)
	assert.Equal(t, AdoptedApproval{Name: "p", Revision: 1, By: "ana"}, r.Validated[0])
	got, err = s.Get(ctx, "p")
	require.NoError(t, err)
	require.NotNil(t, got.Approval, "once adopted, an approval made with the earlier key holds")
	assert.Equal(t, "ana", got.Approval.By)
	_, err = os.Stat(legacy)
	assert.True(t, os.IsNotExist(err), "the key left the plans folder")
	moved, err := os.ReadFile(filepath.Join(root, ".plans.approval-key"))
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(key), strings.TrimSpace(string(moved)))
}

// A key planted inside a plans folder that holds no data of 0.1.0 is never adopted, asked
// or not, and the approvals sealed with it never hold.
func TestAKeyPlantedInAFolderOfThisReleaseIsNeverAdopted(t *testing.T) {
	ctx := context.Background()
	planted := []byte(strings.Repeat("m", 32))
	root, backend, _ := approvedUnderALegacyKey(t, planted, "- [ ] deploy (uses deploy_prod)\n")
	require.NoError(t, os.Remove(filepath.Join(root, ".plans.approval-marks", "p"))) // as a forger writing plan files only has no mark

	for _, adopt := range []bool{false, true} {
		s := mustStore(t, StoreConfig{Backend: backend, AdoptLegacyKey: adopt})
		report, err := s.Check(ctx)
		require.NoError(t, err)
		assert.Equal(t, "/plans/.approval-key", report.LegacyKey)
		assert.False(t, report.LegacyData)
		r, err := s.Migrate(ctx, "p")
		require.NoError(t, err)
		assert.Empty(t, r.AdoptedKey)
		assert.Empty(t, r.Validated)
		assert.Equal(t, "/plans/.approval-key", r.KeyNotAdopted)
		got, err := s.Get(ctx, "p")
		require.NoError(t, err)
		assert.Nil(t, got.Approval, "adopt %v: an approval sealed with a planted key", adopt)
	}
	_, err := os.Stat(filepath.Join(root, ".plans.approval-key"))
	assert.True(t, os.IsNotExist(err), "no key was adopted")
}

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
