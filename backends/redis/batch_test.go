package redisbackend

import (
	"context"
	"testing"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
)

// A plan file and its history entry go in one call: a compare that fails writes neither,
// one that holds writes both, and the entries are listed in their folder.
func TestEntryLandsOnlyBesideItsPlanFile(t *testing.T) {
	b, _ := newBackend(t)
	p, e1, e2 := "/plans/pair.md", "/plans/.history/pair/1-a", "/plans/.history/pair/2-b"
	ok, err := b.CompareAndSwapWithEntry(bg, &plan.WriteRequest{FilePath: p, Content: "one"}, nil, &plan.WriteRequest{FilePath: e1, Content: "entry one"})
	if err != nil || !ok {
		t.Fatalf("create = %v, %v", ok, err)
	}
	ok, err = b.CompareAndSwapWithEntry(bg, &plan.WriteRequest{FilePath: p, Content: "lost"}, ptr("other"), &plan.WriteRequest{FilePath: e2, Content: "entry lost"})
	if err != nil || ok {
		t.Fatalf("a swap from other bytes = %v, %v; want false", ok, err)
	}
	if _, err := b.Read(bg, &plan.ReadRequest{FilePath: e2}); err == nil {
		t.Fatal("a refused swap wrote its entry")
	}
	ok, err = b.CompareAndSwapWithEntry(bg, &plan.WriteRequest{FilePath: p, Content: "two"}, ptr("one"), &plan.WriteRequest{FilePath: e2, Content: "entry two"})
	if err != nil || !ok {
		t.Fatalf("swap = %v, %v", ok, err)
	}
	for path, want := range map[string]string{p: "two", e1: "entry one", e2: "entry two"} {
		fc, err := b.Read(bg, &plan.ReadRequest{FilePath: path})
		if err != nil || fc.Content != want {
			t.Fatalf("%s = %v, %v; want %q", path, fc, err, want)
		}
	}
	infos, err := b.LsInfo(bg, &plan.LsInfoRequest{Path: "/plans/.history/pair"})
	if err != nil || len(infos) != 2 {
		t.Fatalf("history folder lists %v, %v; want the two entries", infos, err)
	}
	for dir, want := range map[string]string{"/plans/.history": "/plans/.history/pair", "/plans": "/plans/.history"} {
		infos, err := b.LsInfo(bg, &plan.LsInfoRequest{Path: dir})
		found := false
		for _, i := range infos {
			found = found || (i.Path == want && i.IsDir)
		}
		if err != nil || !found {
			t.Fatalf("%s lists %+v, %v; want the folder %s", dir, infos, err, want)
		}
	}
}

// DeleteLazily removes files of several folders in one round trip: each removal is
// published to its folder's watchers, a folder left empty leaves its parent's listing, a
// folder that keeps a file stays, and the folder stamp moves.
func TestLazyDeletesEmptyFoldersAndTellWatchers(t *testing.T) {
	b, _ := newBackend(t)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	w, err := b.WatchFiles(ctx, "/plans/.history/a")
	if err != nil {
		t.Fatal(err)
	}
	a1, a2, b1, b2 := "/plans/.history/a/1-x", "/plans/.history/a/2-y", "/plans/.history/b/1-x", "/plans/.history/b/2-y"
	for _, p := range []string{a1, a2, b1, b2} {
		mustWrite(t, b, p, "entry")
	}
	stamp := func() string {
		t.Helper()
		st, _, err := b.FolderStamp(bg, "/plans/.history/b")
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := stamp()
	if err := b.DeleteLazily(bg, a1, b1, a2, "/plans/.history/a/9-missing"); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []driver.FileEvent{{Path: a1}, {Path: a2}, {Path: a1, Deleted: true}, {Path: a2, Deleted: true}} {
		if ev.Deleted {
			wantEvent(t, w, ev)
			continue
		}
		if got := next(t, w); got.Path != ev.Path || got.Deleted {
			t.Fatalf("event %+v, want the write of %s", got, ev.Path)
		}
	}
	for _, p := range []string{a1, a2, b1} {
		if _, err := b.Read(bg, &plan.ReadRequest{FilePath: p}); err == nil {
			t.Fatalf("%s is still there", p)
		}
	}
	infos, err := b.LsInfo(bg, &plan.LsInfoRequest{Path: "/plans/.history"})
	if err != nil || len(infos) != 1 || infos[0].Path != "/plans/.history/b" {
		t.Fatalf("/plans/.history lists %+v, %v; want only folder b", infos, err)
	}
	if infos, err := b.LsInfo(bg, &plan.LsInfoRequest{Path: "/plans/.history/b"}); err != nil || len(infos) != 1 || infos[0].Path != b2 {
		t.Fatalf("/plans/.history/b lists %+v, %v; want %s", infos, err, b2)
	}
	if stamp() == before {
		t.Fatal("the folder stamp stayed through lazy deletes")
	}
	if err := b.DeleteLazily(bg, b2); err != nil {
		t.Fatal(err)
	}
	if infos, err := b.LsInfo(bg, &plan.LsInfoRequest{Path: "/plans"}); err != nil || len(infos) != 0 {
		t.Fatalf("/plans lists %+v, %v after its last file went", infos, err)
	}
}

// A plan write with its entry that is sent again after it landed (its reply lost) reports
// that it landed, even when another write came after it and a prune already removed its
// entry: the memo token records the call, not the entry.
func TestResentEntryWriteReportsItLandedAfterItsEntryWent(t *testing.T) {
	b, _ := newBackend(t)
	p, e := "/plans/resent.md", "/plans/.history/resent/2-b"
	mustWrite(t, b, p, "one")
	m, one, err := b.pair(&plan.WriteRequest{FilePath: p, Content: "two"}, ptr("one"), &plan.WriteRequest{FilePath: e, Content: "entry two"})
	if err != nil || !one {
		t.Fatalf("pair = %v, %v", one, err)
	}
	if n, err := b.run(bg, m.script, m.keys, m.args); err != nil || n&resultApplied == 0 {
		t.Fatalf("first send = %d, %v", n, err)
	}
	ok, err := b.CompareAndSwapWithEntry(bg, &plan.WriteRequest{FilePath: p, Content: "three"}, ptr("two"), &plan.WriteRequest{FilePath: "/plans/.history/resent/3-c", Content: "entry three"})
	if err != nil || !ok {
		t.Fatalf("the next write = %v, %v", ok, err)
	}
	if err := b.DeleteLazily(bg, e); err != nil {
		t.Fatal(err)
	}
	if n, err := b.run(bg, m.script, m.keys, m.args); err != nil || n&resultApplied == 0 {
		t.Fatalf("the resend = %d, %v; want it reported as landed", n, err)
	}
	ok, err = b.CompareAndSwapWithEntry(bg, &plan.WriteRequest{FilePath: p, Content: "two"}, ptr("one"), &plan.WriteRequest{FilePath: "/plans/.history/resent/2-x", Content: "entry"})
	if err != nil || ok {
		t.Fatalf("a new call from the stale bytes = %v, %v; want refused", ok, err)
	}
}
