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
