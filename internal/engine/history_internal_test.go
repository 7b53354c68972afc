package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An entry counts only when it is what its name says: its bytes match the checksum in its
// name and it decodes to that revision. Anything else is never shown, and the history ends
// at the first revision that has no such entry.
func TestHistoryShowsOnlyEntriesThatAreWhatTheirNameSays(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	s := mustStore(t, StoreConfig{Backend: b, HistoryLimit: DefaultHistoryLimit})
	for _, st := range []string{"one", "two", "three", "four"} {
		_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo("- [ ] x\n"), Status: st})
		require.NoError(t, err)
	}
	_, raw2 := mustRevision(t, s, 2)
	// Junk under a well-formed name, and revision 2's file under revision 3's name.
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.entryPath("ship", 3, entrySum("junk")), Content: "junk"}))
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.entryPath("ship", 3, entrySum(raw2)), Content: raw2}))

	statuses := func() []string {
		h, err := s.History(ctx, "ship")
		require.NoError(t, err)
		var out []string
		for _, r := range h {
			out = append(out, r.Status)
		}
		return out
	}
	assert.Equal(t, []string{"four", "three", "two", "one"}, statuses(), "the real entries stay readable beside the bad ones")

	// Revision 2's entry cut short (a crash after an unsynced write): the history ends at 3,
	// and revision 1 is not shown across the gap.
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.entryPath("ship", 2, entrySum(raw2)), Content: raw2[:len(raw2)-2]}))
	assert.Equal(t, []string{"four", "three"}, statuses())
	for _, rev := range []int64{1, 2} {
		_, err := s.GetRevision(ctx, "ship", rev)
		assert.Equal(t, document.CodeNotFound, document.CodeOf(err), "revision %d", rev)
	}
}

// A plan file edited by hand at the same revision is what that revision was: the next
// change keeps the edited file, so history shows what people and agents really read.
func TestHistoryKeepsAHandEditedRevisionAsItWas(t *testing.T) {
	ctx := context.Background()
	b := memfs.New()
	s := mustStore(t, StoreConfig{Backend: b, HistoryLimit: DefaultHistoryLimit})
	for _, st := range []string{"one", "two"} {
		_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo("- [ ] x\n"), Status: st})
		require.NoError(t, err)
	}
	cur, _, err := s.load(ctx, "ship")
	require.NoError(t, err)
	cur.Content = "- [x] x\n"
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.planPath("ship"), Content: document.EncodePlan(cur)}))
	_, err = s.SetStatus(ctx, "ship", "three", nil)
	require.NoError(t, err)
	h, err := s.History(ctx, "ship")
	require.NoError(t, err)
	require.Len(t, h, 3)
	p, err := s.GetRevision(ctx, "ship", 2)
	require.NoError(t, err)
	assert.Equal(t, "- [x] x\n", p.Content, "revision 2 as the person left it")
	p, err = s.GetRevision(ctx, "ship", 1)
	require.NoError(t, err)
	assert.Equal(t, "one", p.Status)
}

func mustRevision(t *testing.T, s *Store, rev int64) (*document.Plan, string) {
	t.Helper()
	p, err := s.GetRevision(context.Background(), "ship", rev)
	require.NoError(t, err)
	return p, document.EncodePlan(p)
}

// newLocalStore is a Store on a LocalBackend in a temp folder, and that folder.
func newLocalStore(t *testing.T) (*Store, string) {
	t.Helper()
	root := t.TempDir()
	backend := newLocal(t, root)
	s := storeOn(t, backend, "")
	return s, root
}

// Whatever stands where the history goes and is not what the Store wrote (a file, a link
// leading out) is set aside and reported: writes, history and deletes go on, and a stray
// file's bytes are kept for a person.
func TestStrayHistoryEntriesNeverBlock(t *testing.T) {
	ctx := context.Background()
	s, root := newLocalStore(t)
	_, err := s.Put(ctx, Update{Name: "a", Content: ptrTo("- [ ] one\n")})
	require.NoError(t, err)

	history := filepath.Join(root, "plans", ".history")
	require.NoError(t, os.RemoveAll(history))
	require.NoError(t, os.WriteFile(history, []byte("a note someone left"), 0o600))
	p, err := s.Put(ctx, Update{Name: "a", Content: ptrTo("- [ ] one\n- [ ] two\n")})
	require.NoError(t, err, "a file at .history does not stop writes")
	assert.EqualValues(t, 2, p.Revision)
	_, err = s.Put(ctx, Update{Name: "b", Content: ptrTo("- [ ] b\n")})
	require.NoError(t, err)
	h, err := s.History(ctx, "a")
	require.NoError(t, err)
	assert.NotEmpty(t, h)

	listing, err := s.ListPage(ctx, ListOptions{})
	require.NoError(t, err)
	require.Len(t, listing.Warnings, 1, "what was set aside is reported")
	assert.Equal(t, ".stray", listing.Warnings[0].Name)
	kept, err := os.ReadDir(filepath.Join(root, "plans", ".stray"))
	require.NoError(t, err)
	require.Len(t, kept, 1)
	got, err := os.ReadFile(filepath.Join(root, "plans", ".stray", kept[0].Name()))
	require.NoError(t, err)
	assert.Equal(t, "a note someone left", string(got), "a stray file's bytes are kept")

	// A link leading out, and a file where one plan's history folder goes.
	require.NoError(t, os.RemoveAll(history))
	require.NoError(t, os.Symlink(t.TempDir(), history))
	_, err = s.Put(ctx, Update{Name: "a", Content: ptrTo("- [ ] one\n")})
	require.NoError(t, err, "a link at .history does not stop writes")
	require.NoError(t, os.MkdirAll(history, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(history, "c"), []byte("stray"), 0o600))
	_, err = s.Put(ctx, Update{Name: "c", Content: ptrTo("- [ ] c\n")})
	require.NoError(t, err, "a file at .history/c does not block plan c")
	_, err = s.Delete(ctx, "c", nil)
	require.NoError(t, err)
	p, err = s.Put(ctx, Update{Name: "c", Content: ptrTo("- [ ] c again\n")})
	require.NoError(t, err)
	assert.EqualValues(t, 2, p.Revision, "revisions go on after the delete")
}

// Strays where the history and the stray folders go block nothing: history reads past a
// file at .history before any write set it aside, and a write sets aside a file at .stray
// too, keeping both files' bytes.
func TestStraysWhereTheStrayFolderGoesNeverBlock(t *testing.T) {
	ctx := context.Background()
	s, root := newLocalStore(t)
	for _, body := range []string{"- [ ] one\n", "- [ ] one\n- [ ] two\n"} {
		_, err := s.Put(ctx, Update{Name: "a", Content: ptrTo(body)})
		require.NoError(t, err)
	}
	dir := filepath.Join(root, "plans")
	require.NoError(t, os.RemoveAll(filepath.Join(dir, ".history")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".history"), []byte("a note"), 0o600))

	h, err := s.History(ctx, "a")
	require.NoError(t, err, "a file at .history does not stop history")
	require.Len(t, h, 1, "only the plan file itself is kept now")
	_, err = s.GetRevision(ctx, "a", 2)
	require.NoError(t, err)

	require.NoError(t, os.WriteFile(filepath.Join(dir, ".stray"), []byte("another note"), 0o600))
	p, err := s.Put(ctx, Update{Name: "a", Content: ptrTo("- [ ] one\n- [ ] two\n- [ ] three\n")})
	require.NoError(t, err, "a file at .stray does not stop writes either")
	assert.EqualValues(t, 3, p.Revision)
	kept, err := os.ReadDir(filepath.Join(dir, ".stray"))
	require.NoError(t, err)
	var bytes []string
	for _, e := range kept {
		b, err := os.ReadFile(filepath.Join(dir, ".stray", e.Name()))
		require.NoError(t, err)
		bytes = append(bytes, string(b))
	}
	assert.ElementsMatch(t, []string{"a note", "another note"}, bytes, "both strays' bytes are kept")
	h, err = s.History(ctx, "a")
	require.NoError(t, err)
	assert.Len(t, h, 2, "history goes on from the write that cleared the way")
}

// History shows only what the Store kept: entries in the format of earlier releases are
// never shown, so a lost entry is not stood in for by one of them, and history ends there.
func TestHistoryNeverServesEntriesOfAnEarlierFormat(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	for _, body := range []string{"one\n", "two\n", "three\n"} {
		_, err := s.Put(ctx, Update{Name: "p", Content: ptrTo(body)})
		require.NoError(t, err)
	}
	dir := "/plans/.history/p"
	entries, err := backend.LsInfo(ctx, &driver.LsInfoRequest{Path: dir})
	require.NoError(t, err)
	lost := 0
	for _, e := range entries {
		if strings.HasPrefix(path.Base(e.Path), "2.") {
			require.NoError(t, backend.Delete(ctx, &driver.DeleteRequest{FilePath: e.Path}), "the real entry of revision 2 is lost")
			lost++
		}
	}
	require.Equal(t, 1, lost)
	forged := document.EncodePlan(&document.Plan{Name: "p", Title: "p", Status: "draft", Revision: 2, UpdatedAt: time.Now(), Content: "forged\n"})
	plantEntry(t, backend, dir, 2, forged, "")

	_, err = s.GetRevision(ctx, "p", 2)
	assert.Equal(t, document.CodeNotFound, document.CodeOf(err), "revision 2 is not served from an entry of an earlier format")
	_, err = s.Diff(ctx, "p", 2, 3)
	assert.Equal(t, document.CodeNotFound, document.CodeOf(err))
	_, err = s.GetRevision(ctx, "p", 1)
	assert.Equal(t, document.CodeNotFound, document.CodeOf(err), "history ends at the lost revision")
	h, err := s.History(ctx, "p")
	require.NoError(t, err)
	require.Len(t, h, 1)
	assert.Equal(t, int64(3), h[0].Revision)
}

// plantEntry writes a history entry the way earlier releases named and encoded them, and
// returns the hash of its plan file.
func plantEntry(t *testing.T, b driver.Backend, dir string, rev int64, file, parent string) string {
	t.Helper()
	sum := sha256.Sum256([]byte(file))
	hash := hex.EncodeToString(sum[:])
	entry := "---\naction: \"write\"\nby: \"x\"\nparent: \"" + parent + "\"\n" + strings.TrimPrefix(file, "---\n")
	name := dir + "/" + strconv.FormatInt(rev, 10) + "-" + hash[:12]
	require.NoError(t, b.Write(context.Background(), &driver.WriteRequest{FilePath: name, Content: entry}))
	return hash
}
