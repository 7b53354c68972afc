package backendtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
)

// The helpers below are for a backend's own tests, beside the suite: raw file operations
// that fail the test on an error, and the receiving end of a driver.Watcher feed.

// MustWrite writes content to p on b.
func MustWrite(t testing.TB, b plan.Backend, p, content string) {
	t.Helper()
	if err := b.Write(context.Background(), &driver.WriteRequest{FilePath: p, Content: content}); err != nil {
		t.Fatalf("Write(%s): %v", p, err)
	}
}

// MustRead reads p on b with a plain ReadRequest (no Offset, no Limit).
func MustRead(t testing.TB, b plan.Backend, p string) string {
	t.Helper()
	fc, err := b.Read(context.Background(), &driver.ReadRequest{FilePath: p})
	if err != nil {
		t.Fatalf("Read(%s): %v", p, err)
	}
	return fc.Content
}

// MustDelete deletes p on b.
func MustDelete(t testing.TB, b plan.Backend, p string) {
	t.Helper()
	if err := b.Delete(context.Background(), &driver.DeleteRequest{FilePath: p}); err != nil {
		t.Fatalf("Delete(%s): %v", p, err)
	}
}

// WantMissing checks that reading p on b fails with fs.ErrNotExist.
func WantMissing(t testing.TB, b plan.Backend, p string) {
	t.Helper()
	_, err := b.Read(context.Background(), &driver.ReadRequest{FilePath: p})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Read(%s) = %v, want fs.ErrNotExist", p, err)
	}
}

// WantExactBytes writes a file that is not clean UTF-8 (NUL bytes, CR LF, 0xff), n times
// 11 bytes, and an empty file, as /plans/bin.md and /plans/empty.md on b, and reads each
// back unchanged.
func WantExactBytes(t testing.TB, b plan.Backend, n int) {
	t.Helper()
	binary := strings.Repeat("\x00\xff\r\n--- é ", n)
	MustWrite(t, b, "/plans/bin.md", binary)
	if got := MustRead(t, b, "/plans/bin.md"); got != binary {
		t.Fatalf("binary content changed on the way: %d bytes back, %d written", len(got), len(binary))
	}
	MustWrite(t, b, "/plans/empty.md", "")
	if got := MustRead(t, b, "/plans/empty.md"); got != "" {
		t.Fatalf("empty file read back as %q", got)
	}
}

// Ls returns LsInfo(dir) on b as "path" for files and "path/" for folders.
func Ls(t testing.TB, b plan.Backend, dir string) []string {
	t.Helper()
	infos, err := b.LsInfo(context.Background(), &driver.LsInfoRequest{Path: dir})
	if err != nil {
		t.Fatalf("LsInfo(%s): %v", dir, err)
	}
	out := []string{}
	for _, fi := range infos {
		if fi.IsDir {
			out = append(out, fi.Path+"/")
		} else {
			out = append(out, fi.Path)
		}
	}
	return out
}

// WantLs checks LsInfo(dir) on b, files as "path" and folders as "path/", in order.
func WantLs(t testing.TB, b plan.Backend, dir string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if got := Ls(t, b, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("LsInfo(%s) = %q, want %q", dir, got, want)
	}
}

// NextEvent returns the next event of a feed, failing the test if the feed is closed or
// sends nothing within 10 s.
func NextEvent(t testing.TB, w <-chan driver.FileEvent) driver.FileEvent {
	t.Helper()
	select {
	case ev, ok := <-w:
		if !ok {
			t.Fatal("watch channel closed")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10 s")
	}
	return driver.FileEvent{}
}

// WantEvent checks that the next event of a feed is want.
func WantEvent(t testing.TB, w <-chan driver.FileEvent, want driver.FileEvent) {
	t.Helper()
	if got := NextEvent(t, w); got != want {
		t.Fatalf("event %+v (%d bytes), want %+v (%d bytes)", ShortEvent(got), len(got.Content), ShortEvent(want), len(want.Content))
	}
}

// ShortEvent cuts an event's content to 40 bytes for a failure message.
func ShortEvent(ev driver.FileEvent) driver.FileEvent {
	if len(ev.Content) > 40 {
		ev.Content = ev.Content[:40] + "…"
	}
	return ev
}

// WatchedPlan writes plan "ship" (two pending steps) through a Store on writer and watches
// it through a Store on watched, two Backends on the same storage. The watch ends with the
// test.
func WatchedPlan(t testing.TB, watched, writer plan.Backend) (writing *plan.Store, changes <-chan plan.Change) {
	t.Helper()
	watching, err := plan.NewStore(&plan.StoreConfig{Backend: watched})
	if err != nil {
		t.Fatal(err)
	}
	writing, err = plan.NewStore(&plan.StoreConfig{Backend: writer})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writing.Put(context.Background(), plan.Update{Name: "ship", Content: ptr("- [ ] build\n- [ ] deploy\n")}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if changes, err = watching.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	return writing, changes
}

// ChangesUntil reads changes as "action name revision", resyncs left out, until one of
// plan "ship" at revision last; more than 20, or none for 10 s, fails the test.
func ChangesUntil(t testing.TB, changes <-chan plan.Change, last int64) []string {
	t.Helper()
	var got []string
	for {
		select {
		case c := <-changes:
			if c.Action == plan.ActionResync {
				continue
			}
			got = append(got, fmt.Sprintf("%s %s %d", c.Action, c.Name, c.Revision))
			if c.Name == "ship" && c.Revision == last && c.Action != plan.ActionDelete {
				return got
			}
			if len(got) > 20 {
				t.Fatalf("changes %q", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no revision %d within 10 s; changes so far %q", last, got)
		}
	}
}

// ForgedRevision returns a plan file's content with its revision line claiming revision
// 1000000 in place of 1: what a forged notification carries.
func ForgedRevision(t testing.TB, content string) string {
	t.Helper()
	fake := strings.Replace(content, "revision: 1\n", "revision: 1000000\n", 1)
	if fake == content {
		t.Fatalf("no revision line in %q", content)
	}
	return fake
}

// WantRealWritesOnly writes plan "ship" (from WatchedPlan) five times through writing and
// checks that changes, after forged messages were sent, hold those five writes and nothing
// else.
func WantRealWritesOnly(t testing.TB, writing *plan.Store, changes <-chan plan.Change) {
	t.Helper()
	for i := range 5 {
		if _, err := writing.Put(context.Background(), plan.Update{Name: "ship", Content: ptr(fmt.Sprintf("- [ ] build %d\n- [ ] deploy\n", i))}); err != nil {
			t.Fatal(err)
		}
	}
	got := ChangesUntil(t, changes, 6)
	want := []string{"write ship 2", "write ship 3", "write ship 4", "write ship 5", "write ship 6"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("changes %q, want %q", got, want)
	}
}

// WantNoForgedDelete writes plan "ship" (from WatchedPlan) once more through writing and
// checks that changes, after forged delete messages were sent, hold that write alone.
func WantNoForgedDelete(t testing.TB, writing *plan.Store, changes <-chan plan.Change) {
	t.Helper()
	if _, err := writing.Put(context.Background(), plan.Update{Name: "ship", Content: ptr("- [ ] build\n- [ ] deploy\n- [ ] announce\n")}); err != nil {
		t.Fatal(err)
	}
	if got := ChangesUntil(t, changes, 2); len(got) != 1 || got[0] != "write ship 2" {
		t.Fatalf("changes %q, want only the real write", got)
	}
}

// MustWatch opens a feed on dir of w that ends with the test.
func MustWatch(t testing.TB, w driver.Watcher, dir string) <-chan driver.FileEvent {
	t.Helper()
	ch, err := w.WatchFiles(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// WriteAndSwap makes n changes to path on b, a Write for even i and for odd i a
// CompareAndSwap from the change before, with content(i) as change i's content, and calls
// between(i) after each. It returns the events the changes make on a feed of path's folder,
// in order.
func WriteAndSwap(t testing.TB, b interface {
	plan.Backend
	driver.Swapper
}, path string, n int, content func(i int) string, between func(i int)) []driver.FileEvent {
	t.Helper()
	var want []driver.FileEvent
	for i := range n {
		c := content(i)
		if i%2 == 0 {
			MustWrite(t, b, path, c)
		} else {
			old := want[len(want)-1].Content
			if ok, err := b.CompareAndSwap(context.Background(), &driver.WriteRequest{FilePath: path, Content: c}, &old); !ok || err != nil {
				t.Fatalf("CompareAndSwap = %v, %v", ok, err)
			}
		}
		want = append(want, driver.FileEvent{Path: path, Content: c})
		between(i)
	}
	return want
}
