package postgres

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/api"

	"github.com/jackc/pgx/v5"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/driver"
)

func TestBytesComeBackExactly(t *testing.T) {
	b := newBackend(t)
	backendtest.WantMissing(t, b, "/plans/a.md")
	backendtest.MustWrite(t, b, "/plans/a.md", "one\ntwo\nthree\n")
	if got := backendtest.MustRead(t, b, "plans//a.md"); got != "one\ntwo\nthree\n" {
		t.Fatalf("Read of an uncleaned path = %q", got)
	}
	fc, err := b.Read(bg, &driver.ReadRequest{FilePath: "/plans/a.md", Offset: 2, Limit: 1})
	if err != nil || fc.Content != "two\n" {
		t.Fatalf("Read of line 2 = %v, %v", fc, err)
	}
	backendtest.WantExactBytes(t, b, 95_000) // ~1 MiB
	backendtest.MustDelete(t, b, "/plans/a.md")
	backendtest.WantMissing(t, b, "/plans/a.md")
	backendtest.MustDelete(t, b, "/plans/a.md") // a missing file is no error
	backendtest.WantLs(t, b, "/plans", "/plans/bin.md", "/plans/empty.md")
}

func TestReadAtMostSendsOnlyThePrefix(t *testing.T) {
	b := newBackend(t)
	backendtest.MustWrite(t, b, "/p/big.md", strings.Repeat("x", 100_000))
	for _, n := range []int64{0, 1, 4097, 100_000, 200_000} {
		got, err := b.ReadAtMost(bg, "/p/big.md", n)
		if err != nil || int64(len(got)) != min(n, 100_000) {
			t.Fatalf("ReadAtMost(%d) = %d bytes, %v", n, len(got), err)
		}
	}
	if _, err := b.ReadAtMost(bg, "/p/none.md", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadAtMost of a missing file = %v, want fs.ErrNotExist", err)
	}
}

func TestPathsThatCannotBeStoredAreRefusedUnsent(t *testing.T) {
	b := newBackend(t)
	for _, p := range []string{"/", "", "/plans/..", "/plans/a\x00b.md", "/plans/\xff.md"} {
		err := b.Write(bg, &driver.WriteRequest{FilePath: p, Content: "x"})
		if !errors.Is(err, fs.ErrInvalid) || !errors.Is(err, driver.ErrNotWritten) {
			t.Fatalf("Write(%q) = %v, want fs.ErrInvalid and driver.ErrNotWritten", p, err)
		}
	}
	backendtest.WantLs(t, b, "/")
}

// TestLsInfoListsFoldersOnceEach: subfolders are listed once however many files they hold,
// and folders whose names sort between a folder and its subtree ("a-b", "a.x" next to "a")
// are not skipped by the index scan.
func TestLsInfoListsFoldersOnceEach(t *testing.T) {
	b := newBackend(t)
	backendtest.WantLs(t, b, "/plans")
	for _, p := range []string{"/plans/x.md", "/plans/a/1.md", "/plans/a/2.md", "/plans/a/deep/3.md",
		"/plans/a-b/4.md", "/plans/a.x/5.md", "/plans/a0/6.md", "/plans/b/c/d/7.md", "/other/8.md", "/root.md"} {
		backendtest.MustWrite(t, b, p, "x")
	}
	backendtest.WantLs(t, b, "/", "/other/", "/plans/", "/root.md")
	backendtest.WantLs(t, b, "", "/other/", "/plans/", "/root.md")
	backendtest.WantLs(t, b, "/plans/", "/plans/a/", "/plans/a-b/", "/plans/a.x/", "/plans/a0/", "/plans/b/", "/plans/x.md")
	backendtest.WantLs(t, b, "/plans/a", "/plans/a/1.md", "/plans/a/2.md", "/plans/a/deep/")
	backendtest.WantLs(t, b, "/plans/b", "/plans/b/c/")
	backendtest.WantLs(t, b, "/plans/x.md") // a file lists as an empty folder
	backendtest.WantLs(t, b, "/nowhere")

	// A file and a folder may share a name.
	backendtest.MustWrite(t, b, "/plans/a", "file named like a folder")
	backendtest.WantLs(t, b, "/plans/", "/plans/a", "/plans/a/", "/plans/a-b/", "/plans/a.x/", "/plans/a0/", "/plans/b/", "/plans/x.md")

	// A folder is gone with its last file.
	backendtest.MustDelete(t, b, "/plans/b/c/d/7.md")
	backendtest.WantLs(t, b, "/plans/b")
	backendtest.WantLs(t, b, "/plans/", "/plans/a", "/plans/a/", "/plans/a-b/", "/plans/a.x/", "/plans/a0/", "/plans/x.md")
}

// TestModifiedAtDiffersForEveryWrite: writes of the same bytes in a tight loop, and a delete
// followed by the same write, each give the file a ModifiedAt it never had, in RFC 3339.
func TestModifiedAtDiffersForEveryWrite(t *testing.T) {
	b := newBackend(t)
	seen := map[string]bool{}
	stamp := func() string {
		t.Helper()
		infos, err := b.LsInfo(bg, &driver.LsInfoRequest{Path: "/p"})
		if err != nil || len(infos) != 1 || infos[0].Size != 3 {
			t.Fatalf("LsInfo = %+v, %v", infos, err)
		}
		if _, err := time.Parse(time.RFC3339Nano, infos[0].ModifiedAt); err != nil {
			t.Fatal(err)
		}
		return infos[0].ModifiedAt
	}
	for i := range 200 {
		if i%50 == 49 {
			backendtest.MustDelete(t, b, "/p/f.md")
		}
		backendtest.MustWrite(t, b, "/p/f.md", "abc")
		m := stamp()
		if seen[m] {
			t.Fatalf("write %d repeated ModifiedAt %s", i, m)
		}
		seen[m] = true
	}
	if !b.StrictModTimes() {
		t.Fatal("StrictModTimes = false")
	}
}

// TestCompareAndSwapComparesWholeBytes: a swap from bytes that differ only past the first
// megabyte, or only in a NUL, does not write.
func TestCompareAndSwapComparesWholeBytes(t *testing.T) {
	b := newBackend(t)
	base := strings.Repeat("y", 1<<20)
	backendtest.MustWrite(t, b, "/p/f.md", base+"a")
	for _, old := range []string{base + "b", base, base + "a\x00", ""} {
		ok, err := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/p/f.md", Content: "lost"}, &old)
		if ok || err != nil {
			t.Fatalf("swap from %d other bytes = %v, %v", len(old), ok, err)
		}
	}
	ok, err := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/p/f.md", Content: ""}, ptr(base+"a"))
	if !ok || err != nil {
		t.Fatalf("swap from the stored bytes = %v, %v", ok, err)
	}
	ok, err = b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/p/f.md", Content: "x"}, ptr(""))
	if !ok || err != nil {
		t.Fatalf("swap from an empty file = %v, %v", ok, err)
	}
	if ok, err := b.CompareAndDelete(bg, &driver.DeleteRequest{FilePath: "/p/f.md"}, "y"); ok || err != nil {
		t.Fatalf("delete from other bytes = %v, %v", ok, err)
	}
	if got := backendtest.MustRead(t, b, "/p/f.md"); got != "x" {
		t.Fatalf("after the swaps: %q", got)
	}
}

// TestWriteOnceWritesHistoryEntries: WriteOnce stores bytes like Write, and a Store on the
// Backend keeps a history entry for every change (in the swap itself: see
// TestAStoreChangeIsOneStatement).
func TestWriteOnceWritesHistoryEntries(t *testing.T) {
	b := newBackend(t)
	if err := b.WriteOnce(bg, &driver.WriteRequest{FilePath: "/p/.history/x/1-abc", Content: "entry\x00"}); err != nil {
		t.Fatal(err)
	}
	if got := backendtest.MustRead(t, b, "/p/.history/x/1-abc"); got != "entry\x00" {
		t.Fatalf("WriteOnce stored %q", got)
	}
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: "/plans", HistoryLimit: api.DefaultHistoryLimit})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := s.Put(bg, plan.Update{Name: "h", Content: ptr(strings.Repeat("- [ ] s\n", i+1))}); err != nil {
			t.Fatal(err)
		}
	}
	hist, err := s.History(bg, "h")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 3 {
		t.Fatalf("history holds %d entries, want 3", len(hist))
	}
}

// TestRevisionsNeverRepeatAcrossDeletes: a plan deleted and created again, many times,
// continues its revisions, so a writer holding an old revision never hits the new plan.
func TestRevisionsNeverRepeatAcrossDeletes(t *testing.T) {
	b := newBackend(t)
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	var last int64
	for i := range 10 {
		p, err := s.Put(bg, plan.Update{Name: "again", Content: ptr("x"), IfRevision: ptr(int64(0))})
		if err != nil {
			t.Fatal(err)
		}
		if p.Revision <= last {
			t.Fatalf("cycle %d: revision %d after %d", i, p.Revision, last)
		}
		if last > 0 {
			if _, err := s.Put(bg, plan.Update{Name: "again", Content: ptr("stale"), IfRevision: ptr(last)}); plan.CodeOf(err) != plan.CodeRevisionConflict {
				t.Fatalf("cycle %d: a write from revision %d = %v, want revision_conflict", i, last, err)
			}
		}
		if _, err := s.Delete(bg, "again", ptr(p.Revision)); err != nil {
			t.Fatal(err)
		}
		last = p.Revision
	}
}

// TestAnEditMadeWithSQLKeepsSwapsWorking: content changed with a plain SQL UPDATE (by an
// operator, a migration script) gets its size and hash from the server, so the next
// compare-and-swap from the edited bytes succeeds and one from the old bytes does not.
func TestAnEditMadeWithSQLKeepsSwapsWorking(t *testing.T) {
	b := newBackend(t)
	backendtest.MustWrite(t, b, "/p/f.md", "before")
	if _, err := b.pool.Exec(bg, `UPDATE `+pgx.Identifier{b.Schema()}.Sanitize()+`.files SET content = 'edited' WHERE name = 'f.md'`); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/p/f.md", Content: "x"}, ptr("before")); ok || err != nil {
		t.Fatalf("swap from the old bytes = %v, %v", ok, err)
	}
	if ok, err := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/p/f.md", Content: "after"}, ptr("edited")); !ok || err != nil {
		t.Fatalf("swap from the edited bytes = %v, %v", ok, err)
	}
	infos, err := b.LsInfo(bg, &driver.LsInfoRequest{Path: "/p"})
	if err != nil || len(infos) != 1 || infos[0].Size != 5 {
		t.Fatalf("LsInfo = %+v, %v", infos, err)
	}
}
