package redisbackend

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/einoplan/plan"
)

// listCounter counts the listings of /plans and unwraps to the Backend, whose folder stamp
// the Store then uses.
type listCounter struct {
	*Backend
	lists atomic.Int64
}

func (c *listCounter) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	if req.Path == "/plans" {
		c.lists.Add(1)
	}
	return c.Backend.LsInfo(ctx, req)
}

func (c *listCounter) Unwrap() plan.Backend { return c.Backend }

// While no file of the plans folder changes, List answers from its cache after one round
// trip for the folder's stamp; every kind of change another machine makes (a rewrite, a
// delete, a delete and a create together) moves the stamp and shows in the very next List.
func TestListOfAnUnchangedFolderReadsOnlyTheStamp(t *testing.T) {
	b, _ := newBackend(t)
	counting := &listCounter{Backend: b}
	s, err := plan.NewStore(&plan.StoreConfig{Backend: counting})
	if err != nil {
		t.Fatal(err)
	}
	other := machine(t, b.prefix, nil)
	for _, name := range []string{"alpha", "beta"} {
		if _, err := s.Put(bg, plan.Update{Name: name, Content: ptr("# " + name + "\n- [ ] one\n")}); err != nil {
			t.Fatal(err)
		}
	}
	names := func() map[string]string { t.Helper(); return statuses(t, s) }
	names()
	names()
	before := counting.lists.Load()
	for range 3 {
		if got := names(); len(got) != 2 {
			t.Fatalf("List = %v", got)
		}
	}
	if n := counting.lists.Load() - before; n != 0 {
		t.Fatalf("an unchanged folder was listed %d times", n)
	}

	if _, err := other.SetStatus(bg, "beta", "shipped", nil); err != nil {
		t.Fatal(err)
	}
	if got := names(); got["beta"] != "shipped" {
		t.Fatalf("after another machine's rewrite: %v", got)
	}
	if _, err := other.Delete(bg, "alpha", nil); err != nil {
		t.Fatal(err)
	}
	if got := names(); len(got) != 1 {
		t.Fatalf("after another machine's delete: %v", got)
	}
	names() // vouched again
	if _, err := other.Delete(bg, "beta", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Put(bg, plan.Update{Name: "gamma", Content: ptr("# gamma\n")}); err != nil {
		t.Fatal(err)
	}
	if _, ok := names()["gamma"]; !ok || len(names()) != 1 {
		t.Fatalf("after a delete and a create elsewhere: %v", names())
	}
}

// A bare delete, with no write beside it, moves the folder's stamp; deleting a file that is
// not there leaves it.
func TestEveryDeleteMovesTheFolderStamp(t *testing.T) {
	b, _ := newBackend(t)
	stamp := func() string {
		t.Helper()
		st, recent, err := b.FolderStamp(bg, "/plans")
		if err != nil || recent {
			t.Fatalf("FolderStamp = %q, %v, %v", st, recent, err)
		}
		return st
	}
	if err := b.Write(bg, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "# a\n"}); err != nil {
		t.Fatal(err)
	}
	written := stamp()
	if err := b.Delete(bg, &driver.DeleteRequest{FilePath: "/plans/a.md"}); err != nil {
		t.Fatal(err)
	}
	deleted := stamp()
	if deleted == written {
		t.Fatalf("the stamp %q stayed through a delete", deleted)
	}
	if err := b.Delete(bg, &driver.DeleteRequest{FilePath: "/plans/a.md"}); err != nil {
		t.Fatal(err)
	}
	if again := stamp(); again != deleted {
		t.Fatalf("deleting a missing file moved the stamp from %q to %q", deleted, again)
	}
}

// A file removed without moving the group's clock (as an earlier release's delete script
// did) still moves the folder's stamp: the stamp holds the folder index's size too.
func TestAnOldReleasesDeleteMovesTheFolderStamp(t *testing.T) {
	b, c := newBackend(t)
	for _, p := range []string{"/plans/a.md", "/plans/b.md"} {
		if err := b.Write(bg, &driver.WriteRequest{FilePath: p, Content: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	before, _, err := b.FolderStamp(bg, "/plans")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.HDel(bg, b.dirKey("/plans"), "a.md").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Del(bg, b.contentKey("/plans/a.md")).Err(); err != nil {
		t.Fatal(err)
	}
	after, _, err := b.FolderStamp(bg, "/plans")
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Fatalf("the stamp %q stayed through a delete that left the clock", after)
	}
}

// statuses lists the plans of s: each plan's name and status.
func statuses(t *testing.T, s *plan.Store) map[string]string {
	t.Helper()
	l, err := s.ListPage(bg, plan.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range l.Plans {
		out[p.Name] = p.Status
	}
	return out
}
