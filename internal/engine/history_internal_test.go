package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path"
	"path/filepath"
	"strconv"
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

var castagnoliTable = crc32.MakeTable(crc32.Castagnoli)

// format1File is a plan file as release 0.1.0 wrote it (no format line; replaces a CRC-32C).
func format1File(rev int64, status, replaces string) string {
	out := fmt.Sprintf("---\ntitle: \"Old\"\nstatus: %q\nauthor: \"ana\"\nrevision: %d\nupdated_at: \"2026-01-0%dT00:00:00Z\"\nchange: \"status\"\n", status, rev, rev)
	if replaces != "" {
		out += "replaces: \"" + replaces + "\"\n"
	}
	return out + "---\n# Old\n- [ ] One\n"
}

// format1Plan is a MemoryBackend holding plan old as release 0.1.0 left it: revision 2 in the
// plan file, revision 1 kept in its history.
func format1Plan(t *testing.T) *memfs.Backend {
	t.Helper()
	b := memfs.New()
	r1 := format1File(1, "draft", "")
	writeFile(t, b, "/plans/.history/old/1."+crcName(r1), r1)
	writeFile(t, b, "/plans/old.md", format1File(2, "active", crcName(r1)))
	return b
}

func crcName(raw string) string {
	return fmt.Sprintf("%08x", crc32.Checksum([]byte(raw), castagnoliTable))
}

func readFile(t *testing.T, b driver.Backend, p string) string {
	t.Helper()
	fc, err := b.Read(context.Background(), &driver.ReadRequest{FilePath: p})
	require.NoError(t, err)
	return fc.Content
}

func writeFile(t *testing.T, b driver.Backend, p, content string) {
	t.Helper()
	require.NoError(t, b.Write(context.Background(), &driver.WriteRequest{FilePath: p, Content: content}))
}

// A plan file of a format newer than this release knows reads, and no change of it is
// written: each is refused with newer_format and the file stays as it was.
func TestAPlanOfANewerFormatReadsButIsNeverRewritten(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	body := "# Next\n- [ ] One\n"
	_, err := s.Put(ctx, Update{Name: "next", Content: &body})
	require.NoError(t, err)
	raw := readFile(t, backend, "/plans/next.md")
	require.True(t, strings.HasPrefix(raw, "---\nformat: 2\n"), raw)
	newer := strings.Replace(raw, "format: 2\n", "format: 3\nsomething_new: \"x\"\n", 1)
	writeFile(t, backend, "/plans/next.md", newer)

	p, err := s.Get(ctx, "next")
	require.NoError(t, err)
	assert.Equal(t, body, p.Content)
	rev := p.Revision
	status := "done"
	for what, write := range map[string]func() error{
		"put": func() error {
			_, err := s.Put(ctx, Update{Name: "next", Content: &body, IfRevision: &rev})
			return err
		},
		"status": func() error { _, err := s.SetStatus(ctx, "next", status, nil); return err },
		"step": func() error {
			_, _, err := s.MoveStep(ctx, StepMove{Name: "next", Step: 1, State: document.StepCompleted})
			return err
		},
		"migrate": func() error { _, err := s.Migrate(ctx, "next"); return err },
	} {
		err := write()
		var pe *document.Error
		require.True(t, errors.As(err, &pe), "%s: %v", what, err)
		assert.Equal(t, document.CodeCorrupt, pe.Code, what)
		assert.Equal(t, "newer_format", pe.Reason, what)
		assert.Contains(t, pe.Message, `file format "3"`, what)
	}
	assert.Equal(t, newer, readFile(t, backend, "/plans/next.md"))
	report, err := s.Check(ctx)
	require.NoError(t, err)
	require.Len(t, report.Plans, 1)
	assert.Equal(t, int64(3), report.Plans[0].Format)
	assert.Equal(t, int64(2), report.Format)
}

// racingBackend lets another writer change a plan while a migration has read it.
type racingBackend struct {
	*memfs.Backend
	once  sync.Once
	onCRC func()
}

// race runs onCRC once, at the first read of an entry named by a CRC-32C.
func (b *racingBackend) race(p string) {
	if base := p[strings.LastIndexByte(p, '/')+1:]; strings.HasPrefix(p, "/plans/.history/") && len(base) == len("1.")+8 {
		b.once.Do(b.onCRC)
	}
}

func (b *racingBackend) Read(ctx context.Context, req *driver.ReadRequest) (*driver.FileContent, error) {
	b.race(req.FilePath)
	return b.Backend.Read(ctx, req)
}

func (b *racingBackend) ReadAtMost(ctx context.Context, p string, n int64) (string, error) {
	b.race(p)
	return b.Backend.ReadAtMost(ctx, p, n)
}

// An agent's write that lands while Migrate works is kept: the migration starts again from
// it and converts the history below it, so its change and every older revision are served.
func TestMigrateKeepsAWriteThatLandsMeanwhile(t *testing.T) {
	ctx := context.Background()
	inner := format1Plan(t)

	// The agent is another process on the same storage: its write lands between the
	// migration's read of the plan file and its compare-and-swap. It is made on a copy and
	// copied in, the way it would reach the storage.
	other := format1Plan(t)
	agent := storeOn(t, other, "")
	_, err := agent.SetStatus(document.WithActor(ctx, "agent-7"), "old", "agent's", nil)
	require.NoError(t, err)
	racing := &racingBackend{Backend: inner, onCRC: func() {}}
	armed := func() {
		infos, err := other.LsInfo(ctx, &driver.LsInfoRequest{Path: "/plans/.history/old"})
		require.NoError(t, err)
		for _, info := range infos {
			writeFile(t, inner, info.Path, readFile(t, other, info.Path))
		}
		writeFile(t, inner, "/plans/old.md", readFile(t, other, "/plans/old.md"))
	}
	s := storeOn(t, racing, "")

	check, err := s.Check(ctx)
	require.NoError(t, err)
	require.Len(t, check.Plans, 1)
	assert.Equal(t, []int64{1}, check.Plans[0].Convertible)
	assert.True(t, check.Plans[0].NeedsMigrate)
	assert.Equal(t, int64(1), check.Plans[0].Format)

	racing.once, racing.onCRC = sync.Once{}, armed
	report, err := s.Migrate(ctx, "old")
	require.NoError(t, err)
	assert.Equal(t, int64(3), report.Revision)
	assert.Equal(t, []int64{2, 1}, report.Converted)
	assert.True(t, report.Rewritten)

	hist, err := s.History(ctx, "old")
	require.NoError(t, err)
	var statuses []string
	for _, r := range hist {
		statuses = append(statuses, fmt.Sprint(r.Revision, " ", r.Status))
		assert.False(t, r.OlderUnverified)
	}
	assert.Equal(t, []string{"3 agent's", "2 active", "1 draft"}, statuses)
	assert.Equal(t, "agent-7", hist[0].Author)
	first, err := s.GetRevision(ctx, "old", 1)
	require.NoError(t, err)
	assert.Equal(t, "draft", first.Status)

	again, err := s.Migrate(ctx, "old")
	require.NoError(t, err)
	assert.Empty(t, again.Converted)
	assert.False(t, again.Rewritten)
}

// Check tells a kept revision of 0.1.0 whose bytes no longer match its CRC-32C from one a
// migration converts, and Migrate leaves it unserved.
func TestAnOldEntryThatDoesNotMatchItsCRCIsReportedAndNotConverted(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	r1 := format1File(1, "draft", "")
	r2 := format1File(2, "active", crcName(r1))
	writeFile(t, backend, "/plans/.history/old/1."+crcName(r1), strings.Replace(r1, "draft", "forged", 1))
	writeFile(t, backend, "/plans/old.md", r2)
	s := storeOn(t, backend, "")

	check, err := s.Check(ctx)
	require.NoError(t, err)
	require.Len(t, check.Plans, 1)
	assert.Empty(t, check.Plans[0].Convertible)
	assert.Equal(t, int64(1), check.Plans[0].UnreadableRevision)
	assert.Equal(t, "crc32c_mismatch", check.Plans[0].UnreadableReason)

	report, err := s.Migrate(ctx, "old")
	require.NoError(t, err)
	assert.Empty(t, report.Converted)
	assert.True(t, report.Rewritten, "the plan file gets its format line")
	_, err = s.GetRevision(ctx, "old", 1)
	var pe *document.Error
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, document.CodeNotFound, pe.Code)
}

// Check says why an approval no longer holds (the key missing, another key, the file
// edited), and reports the files set aside, reading only.
func TestCheckSaysWhyAnApprovalNoLongerHolds(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s := storeOn(t, backend, "")
	body := "# Ok\n- [ ] One\n"
	putApproved(t, ctx, s, "ok", body)
	writeFile(t, backend, "/plans/.stray/_history-1", "left over")
	reason := func(s *Store) string {
		t.Helper()
		r, err := s.Check(ctx)
		require.NoError(t, err)
		require.Len(t, r.Plans, 1)
		assert.Equal(t, []string{"/plans/.stray/_history-1"}, r.Strays)
		return r.Plans[0].Reapprove
	}
	assert.Equal(t, "", reason(s), "the approval holds")

	key := readFile(t, backend, "/.plans.approval-key")
	writeFile(t, backend, "/.plans.approval-key", strings.Repeat("ab", 32)+"\n")
	fresh := func() *Store { // a Store of another process, which has not read the key yet
		t.Helper()
		other := storeOn(t, backend, "")
		return other
	}
	assert.Equal(t, "key_changed", reason(fresh()))
	require.NoError(t, backend.Delete(ctx, &driver.DeleteRequest{FilePath: "/.plans.approval-key"}))
	assert.Equal(t, "key_missing", reason(fresh()))
	assert.NotContains(t, lsNames(t, backend, "/"), ".plans.approval-key", "check made no key")

	writeFile(t, backend, "/.plans.approval-key", key)
	raw := readFile(t, backend, "/plans/ok.md")
	writeFile(t, backend, "/plans/ok.md", strings.Replace(raw, "- [ ] One", "- [ ] One, and more", 1))
	assert.Equal(t, "edited", reason(fresh()))
}

// lsPaths lists the paths in folder dir of b.
func lsPaths(t *testing.T, b driver.Backend, dir string) []string {
	t.Helper()
	infos, err := b.LsInfo(context.Background(), &driver.LsInfoRequest{Path: dir})
	require.NoError(t, err)
	var out []string
	for _, info := range infos {
		out = append(out, info.Path)
	}
	return out
}

// lsNames lists the names in folder dir of b.
func lsNames(t *testing.T, b driver.Backend, dir string) []string {
	t.Helper()
	var out []string
	for _, p := range lsPaths(t, b, dir) {
		out = append(out, p[strings.LastIndexByte(p, '/')+1:])
	}
	return out
}
