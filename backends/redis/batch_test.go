package redisbackend

import (
	"testing"

	"github.com/einoplan/plan"
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
}
