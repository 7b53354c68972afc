package redisbackend

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/internal/keptlist"
)

// A large folder listed again after each kind of change lists exactly what a Backend that
// never listed it does, and what a caller does to a listing it got changes nothing later.
func TestLsInfoOfAKeptListingFollowsEveryChange(t *testing.T) {
	b, c := newBackend(t)
	const dir = "/plans"
	for i := range keptlist.MinEntries + 40 {
		backendtest.MustWrite(t, b, fmt.Sprintf("%s/p%03d.md", dir, i), "v1")
	}
	backendtest.MustWrite(t, b, dir+"/.history/p000/1.0a1b2c3d", "a kept revision")
	check := func(step string) {
		t.Helper()
		got, err := b.LsInfo(bg, &driver.LsInfoRequest{Path: dir})
		if err != nil {
			t.Fatal(err)
		}
		want, err := mustNew(t, c, WithPrefix(b.prefix)).LsInfo(bg, &driver.LsInfoRequest{Path: dir})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: LsInfo = %v, a fresh Backend lists %v", step, got, want)
		}
		for i := range got { // the caller's copy is its own
			got[i] = driver.FileInfo{Path: "scribbled"}
		}
	}
	check("first listing")
	check("unchanged")
	backendtest.MustWrite(t, b, dir+"/p007.md", "v2 is longer")
	check("one file rewritten")
	check("unchanged since the rewrite")
	if err := b.Delete(bg, &driver.DeleteRequest{FilePath: dir + "/p008.md"}); err != nil {
		t.Fatal(err)
	}
	check("one file deleted")
	backendtest.MustWrite(t, b, dir+"/p999.md", "new")
	check("one file added")
	if err := b.Delete(bg, &driver.DeleteRequest{FilePath: dir + "/p009.md"}); err != nil {
		t.Fatal(err)
	}
	backendtest.MustWrite(t, b, dir+"/p008.md", "back")
	check("one file replaced by another: as many names, not the same")
	backendtest.MustWrite(t, b, dir+"/.deleted/p009", "tombstone")
	check("a hidden subfolder added")
	backendtest.MustWrite(t, b, dir+"/.same", "a hidden file")
	backendtest.MustWrite(t, b, dir+"/.same/inner", "in a hidden folder of the same name")
	check("a file and a folder of the same name")
	if got := backendtest.Ls(t, b, dir); !slices.Contains(got, dir+"/.same") || got[slices.Index(got, dir+"/.same")+1] != dir+"/.same/" {
		t.Fatalf("LsInfo = %q: want the file .same right before the folder .same", got)
	}
	check("unchanged since")
	backendtest.MustWrite(t, b, dir+"/team/x.md", "a folder of its own group")
	check("a subfolder that starts a group of its own")
	if err := b.Delete(bg, &driver.DeleteRequest{FilePath: dir + "/team/x.md"}); err != nil {
		t.Fatal(err)
	}
	check("that subfolder gone")
	for f := range keptlist.MaxFolders + 1 { // more large folders than are kept
		other := fmt.Sprintf("/other%02d", f)
		for i := range keptlist.MinEntries {
			backendtest.MustWrite(t, b, fmt.Sprintf("%s/p%03d.md", other, i), "x")
		}
		backendtest.WantLs(t, b, other, backendtest.Ls(t, mustNew(t, c, WithPrefix(b.prefix)), other)...)
	}
	backendtest.MustWrite(t, b, dir+"/p010.md", "v3")
	check("after other folders took the place of this one")
}

// A Store listing a folder large enough for its listing to be kept sees every change
// another machine makes, with history and tombstones beside the plans: a status update, a
// delete, a create, and a delete and a create together (as many plans, not the same).
func TestStoreSeesAnotherMachinesChangesInAKeptListing(t *testing.T) {
	b, _ := newBackend(t)
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	other := machine(t, b.prefix, nil)
	want := map[string]string{}
	for i := range keptlist.MinEntries + 2 {
		name := fmt.Sprintf("p%03d", i)
		if _, err := other.Put(bg, plan.Update{Name: name, Content: ptr("- [ ] one\n")}); err != nil {
			t.Fatal(err)
		}
		want[name] = "draft"
	}
	check := func(step string) {
		t.Helper()
		for range 2 { // the listing that keeps, then the one that reuses
			if got := statuses(t, s); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: List has %d plans, want %d: %v", step, len(got), len(want), got)
			}
		}
	}
	check("created")
	if _, err := other.SetStatus(bg, "p007", "shipped", nil); err != nil {
		t.Fatal(err)
	}
	want["p007"] = "shipped"
	check("a status update")
	if _, err := other.Delete(bg, "p008", nil); err != nil {
		t.Fatal(err)
	}
	delete(want, "p008")
	check("a delete")
	if _, err := other.Put(bg, plan.Update{Name: "p999", Content: ptr("- [ ] one\n"), Status: "new"}); err != nil {
		t.Fatal(err)
	}
	want["p999"] = "new"
	check("a create")
	if _, err := other.Delete(bg, "p009", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Put(bg, plan.Update{Name: "p008", Content: ptr("- [ ] again\n")}); err != nil {
		t.Fatal(err)
	}
	delete(want, "p009")
	want["p008"] = "draft"
	check("a delete and a create")
}
