package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/driver"
)

// TestWatchDeliversEveryChangeInOrder: a feed on /plans sees every write, swap and delete
// made directly inside /plans by another Backend on another pool, in order and with the
// whole new content (NUL bytes and invalid UTF-8 included), and nothing made in a
// subfolder, another folder or another schema.
func TestWatchDeliversEveryChangeInOrder(t *testing.T) {
	writer := newBackend(t)
	watcher := mustNew(t, newPool(t, serverURL, 0), WithSchema(writer.Schema()))
	elsewhere := newBackend(t)
	w := backendtest.MustWatch(t, watcher, "plans/")
	want := backendtest.WriteAndSwap(t, writer, "/plans/a.md", 30,
		func(i int) string { return fmt.Sprintf("v%d\n- [ ] step é\x00\xff", i) },
		func(int) {
			backendtest.MustWrite(t, writer, "/plans/sub/x.md", "elsewhere")
			backendtest.MustWrite(t, writer, "/other/a.md", "elsewhere")
			backendtest.MustWrite(t, elsewhere, "/plans/a.md", "another schema")
		})
	if ok, _ := writer.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "lost"}, ptr("not it")); ok {
		t.Fatal("a failed swap wrote")
	}
	if err := writer.WriteOnce(bg, &driver.WriteRequest{FilePath: "/plans/once.md", Content: "entry"}); err != nil {
		t.Fatal(err)
	}
	want = append(want, driver.FileEvent{Path: "/plans/once.md", Content: "entry"})
	old := want[len(want)-2].Content
	if ok, err := writer.CompareAndDelete(bg, &driver.DeleteRequest{FilePath: "/plans/a.md"}, old); !ok || err != nil {
		t.Fatalf("CompareAndDelete = %v, %v", ok, err)
	}
	want = append(want, driver.FileEvent{Path: "/plans/a.md", Deleted: true})
	for _, ev := range want {
		backendtest.WantEvent(t, w, ev)
	}
	select {
	case ev := <-w:
		t.Fatalf("unexpected event %+v", backendtest.ShortEvent(ev))
	case <-time.After(200 * time.Millisecond):
	}
}

// TestWatchReadsLargeContentBack: contents too large for a notification are read back by
// their version and delivered whole, in order, as long as the feed keeps up.
func TestWatchReadsLargeContentBack(t *testing.T) {
	b := newBackend(t)
	w := backendtest.MustWatch(t, b, "/plans")
	for i := range 5 {
		content := fmt.Sprint(i) + strings.Repeat("\x00large é", 100_000)
		backendtest.MustWrite(t, b, "/plans/a.md", content)
		backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: content})
	}
}

// TestWatchResyncsForALargeVersionAlreadyReplaced: when large writes land faster than the
// feed reads them back, the feed sends a Resync for each one already replaced, never stale
// content after newer content, and the delete that ends them.
func TestWatchResyncsForALargeVersionAlreadyReplaced(t *testing.T) {
	b := newBackend(t)
	w := backendtest.MustWatch(t, b, "/plans")
	large := strings.Repeat("x", 10_000)
	for i := range 20 {
		backendtest.MustWrite(t, b, "/plans/a.md", fmt.Sprint(i)+large)
	}
	backendtest.MustDelete(t, b, "/plans/a.md")
	last := -1
	for {
		ev := backendtest.NextEvent(t, w)
		if ev.Deleted {
			break
		}
		if ev.Resync {
			continue
		}
		var i int
		fmt.Sscan(strings.TrimSuffix(ev.Content, large), &i)
		if i <= last || ev.Content != fmt.Sprint(i)+large {
			t.Fatalf("event for write %d after write %d", i, last)
		}
		last = i
	}
}

// TestWatchResyncsAfterItsSessionIsTerminated: when the feed's session is terminated from
// another connection, the feed listens again, sends one Resync, and then delivers changes
// as before.
func TestWatchResyncsAfterItsSessionIsTerminated(t *testing.T) {
	requireServer(t)
	name := "watch-" + testSchema()
	writer := newBackend(t)
	b := mustNew(t, victimPool(t, name), WithSchema(writer.Schema()))
	admin := newPool(t, serverURL, 0)
	w := backendtest.MustWatch(t, b, "/plans")
	if n, err := terminate(bg, admin, name); err != nil || n == 0 {
		t.Fatalf("terminate: %d sessions, %v", n, err)
	}
	backendtest.WantEvent(t, w, driver.FileEvent{Resync: true})
	backendtest.MustWrite(t, writer, "/plans/a.md", "after")
	backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: "after"})
}

// TestWatchResumesAfterServerRestart: a feed whose server stops (all sessions end) and comes
// back on the same port resumes with one Resync, then delivers changes; a write made while
// the server was down is impossible, and one made right after the restart is delivered or
// covered by that Resync.
func TestWatchResumesAfterServerRestart(t *testing.T) {
	srv := ownServer(t)
	b := mustNew(t, newPool(t, srv.URL(), 0))
	w := backendtest.MustWatch(t, b, "/plans")
	backendtest.MustWrite(t, b, "/plans/a.md", "before")
	backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: "before"})
	srv.Kill()
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	backendtest.WantEvent(t, w, driver.FileEvent{Resync: true})
	// The pool's own connections died with the server too; the first use of each may fail.
	waitFor(t, func() bool {
		return b.Write(bg, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "after"}) == nil
	})
	backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: "after"})
}

// TestWatchResyncsWhenTheReceiverFallsBehind: a receiver that reads nothing while more than
// the buffer's worth of changes land gets the buffered events, then one Resync in place of
// those dropped, then later changes.
func TestWatchResyncsWhenTheReceiverFallsBehind(t *testing.T) {
	b := newBackend(t)
	w := backendtest.MustWatch(t, b, "/plans")
	for i := range driver.FeedBuffer + 50 {
		backendtest.MustWrite(t, b, "/plans/a.md", fmt.Sprint(i))
	}
	// The feed reads each notification back, which takes longer on a busy machine: wait until
	// its buffer is full, then for the notifications past it to arrive and be dropped.
	for deadline := time.Now().Add(10 * time.Second); len(w) < driver.FeedBuffer && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	for i := range driver.FeedBuffer {
		backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: fmt.Sprint(i)})
	}
	backendtest.WantEvent(t, w, driver.FileEvent{Resync: true})
	backendtest.MustWrite(t, b, "/plans/a.md", "later")
	backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: "later"})
}

// TestWatchEndsWithItsContext: the feed's channel is closed when its context ends.
func TestWatchEndsWithItsContext(t *testing.T) {
	b := newBackend(t)
	ctx, cancel := context.WithCancel(bg)
	w, err := b.WatchFiles(ctx, "/plans")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case _, ok := <-w:
		for ok {
			_, ok = <-w
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the feed was not closed")
	}
}

// TestStoreWatchSeesChangesOfAnotherStore: Store.Watch on one Backend reports the writes and
// the delete made through a Store on another pool, pushed by the feed.
func TestStoreWatchSeesChangesOfAnotherStore(t *testing.T) {
	b := newBackend(t)
	other := mustNew(t, newPool(t, serverURL, 0), WithSchema(b.Schema()))
	watching, err := plan.NewStore(&plan.StoreConfig{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	writing, err := plan.NewStore(&plan.StoreConfig{Backend: other})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	changes, err := watching.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writing.Put(bg, plan.Update{Name: "w", Content: ptr("- [ ] a\n")}); err != nil {
		t.Fatal(err)
	}
	if _, err := writing.Delete(bg, "w", ptr(int64(1))); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 2 {
		select {
		case c := <-changes:
			got = append(got, fmt.Sprintf("%s %s %d", c.Action, c.Name, c.Revision))
		case <-time.After(10 * time.Second):
			t.Fatalf("changes so far %q", got)
		}
	}
	if got[0] != "write w 1" || got[1] != "delete w 1" {
		t.Fatalf("changes %q", got)
	}
}

// TestWatchListensWithTheListenConfig: WithListenConfig's settings, not the pool's, open the
// feed's session (here told apart by application_name), and the feed works through it.
func TestWatchListensWithTheListenConfig(t *testing.T) {
	writer := newBackend(t)
	cfg, err := pgx.ParseConfig(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	name := "listen-" + testSchema()
	cfg.RuntimeParams["application_name"] = name
	b := mustNew(t, newPool(t, serverURL, 0), WithSchema(writer.Schema()), WithListenConfig(cfg))
	w := backendtest.MustWatch(t, b, "/plans")
	var sessions int
	if err := newPool(t, serverURL, 0).QueryRow(bg, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&sessions); err != nil || sessions != 1 {
		t.Fatalf("%d sessions named %s, %v; want the feed's one", sessions, name, err)
	}
	backendtest.MustWrite(t, writer, "/plans/a.md", "x")
	backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: "x"})
}
