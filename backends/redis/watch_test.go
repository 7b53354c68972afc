package redisbackend

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/driver"
)

// watchOrder writes, swaps and deletes files in and around /plans through writer and checks
// that the watcher on /plans sees the changes directly inside it, in order, and nothing
// else: only a write already replaced when the feed read it back may be missing.
func watchOrder(t *testing.T, watcher, writer *Backend) {
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	w, err := watcher.WatchFiles(ctx, "/plans")
	if err != nil {
		t.Fatal(err)
	}
	want := backendtest.WriteAndSwap(t, writer, "/plans/a.md", 40,
		func(i int) string { return fmt.Sprintf("v%d\n- [ ] step é\x00", i) },
		func(int) {
			backendtest.MustWrite(t, writer, "/plans/sub/x.md", "elsewhere")
			backendtest.MustWrite(t, writer, "/other/a.md", "elsewhere")
		})
	old := want[len(want)-1].Content
	if ok, err := writer.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "lost"}, ptr("stale")); ok || err != nil {
		t.Fatalf("stale CompareAndSwap = %v, %v", ok, err)
	}
	if ok, err := writer.CompareAndDelete(bg, &driver.DeleteRequest{FilePath: "/plans/a.md"}, old); !ok || err != nil {
		t.Fatalf("CompareAndDelete = %v, %v", ok, err)
	}
	want = append(want, driver.FileEvent{Path: "/plans/a.md", Deleted: true})
	backendtest.MustWrite(t, writer, "/plans/b.md", "")
	want = append(want, driver.FileEvent{Path: "/plans/b.md"})
	// In order; a write the file had moved past when the feed read it back may be skipped,
	// never the change that moved it.
	for i := 0; i < len(want); i++ {
		got := backendtest.NextEvent(t, w)
		j := i
		for j < len(want) && want[j] != got && !want[j].Deleted && want[j].Path == got.Path {
			j++
		}
		if j == len(want) || want[j] != got {
			t.Fatalf("event %+v, want %+v", got, want[i])
		}
		i = j
	}
	select {
	case ev := <-w:
		t.Fatalf("unexpected event %+v", ev)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	select {
	case _, ok := <-w:
		if ok {
			t.Fatal("event after cancel")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("watch channel not closed after ctx ended")
	}
}

// TestWatchFilesInOrder: changes made through another client arrive in order, with their
// whole content, and only for files directly inside the watched folder.
func TestWatchFilesInOrder(t *testing.T) {
	b, _ := newBackend(t)
	watchOrder(t, b, mustNew(t, newClient(t, redisAddr), WithPrefix(b.prefix)))
}

// TestWatchFilesResyncAfterDroppedConnection kills the watcher's connection on the server:
// the feed sends one Resync once subscribed again, then delivers changes as before.
func TestWatchFilesResyncAfterDroppedConnection(t *testing.T) {
	b, c := newBackend(t)
	w := backendtest.MustWatch(t, b, "/plans")
	backendtest.MustWrite(t, b, "/plans/a.md", "before")
	backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: "before"})
	if n, err := c.ClientKillByFilter(bg, "TYPE", "pubsub").Result(); err != nil || n == 0 {
		t.Fatalf("CLIENT KILL TYPE pubsub = %d, %v", n, err)
	}
	backendtest.WantEvent(t, w, driver.FileEvent{Resync: true})
	backendtest.MustWrite(t, b, "/plans/a.md", "after")
	backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: "after"})
}

// TestWatchFilesOverflowResync: a receiver that stops reading gets the first driver.FeedBuffer
// events in order, then one Resync for those it missed.
func TestWatchFilesOverflowResync(t *testing.T) {
	b, _ := newBackend(t)
	w := backendtest.MustWatch(t, b, "/plans")
	const writes = driver.FeedBuffer + 60
	for i := range writes { // one file each: a file written again before the feed reads it back is skipped
		backendtest.MustWrite(t, b, fmt.Sprintf("/plans/%d.md", i), fmt.Sprint(i))
	}
	// Let the feed fill its buffer and take in (and drop) the rest.
	for deadline := time.Now().Add(10 * time.Second); len(w) < driver.FeedBuffer && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(time.Second)
	for i := range driver.FeedBuffer {
		backendtest.WantEvent(t, w, driver.FileEvent{Path: fmt.Sprintf("/plans/%d.md", i), Content: fmt.Sprint(i)})
	}
	backendtest.WantEvent(t, w, driver.FileEvent{Resync: true})
	backendtest.MustWrite(t, b, "/plans/a.md", "later")
	backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: "later"})
}

// TestClusterWatchFiles: on a Cluster the events travel by sharded pub/sub in the folder's
// slot; they arrive in order, and a takeover of that slot's master gives one Resync, after
// which changes arrive again from the new master.
func TestClusterWatchFiles(t *testing.T) {
	b, _ := newClusterBackend(t)
	other := mustNew(t, newClusterClient(t, nil), WithPrefix(b.prefix))
	watchOrder(t, b, other)

	c := sharedCluster(t)
	w := backendtest.MustWatch(t, b, "/plans")
	master, err := c.MasterFor(bg, b.dirKey("/plans"))
	if err != nil {
		t.Fatal(err)
	}
	replica, err := c.ReplicaOf(bg, master)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(bg, replica, "CLUSTER", "FAILOVER", "TAKEOVER"); err != nil {
		t.Fatal(err)
	}
	backendtest.WantEvent(t, w, driver.FileEvent{Resync: true})
	ctx, cancel := context.WithTimeout(bg, 20*time.Second)
	defer cancel()
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	backendtest.MustWrite(t, other, "/plans/a.md", "after the takeover")
	backendtest.WantEvent(t, w, driver.FileEvent{Path: "/plans/a.md", Content: "after the takeover"})
}

// A watcher on Redis (pushed by keyspace events) misses nothing history keeps: four
// workers' step moves arrive once each, in order, with their action and actor.
func TestWatchDeliversEveryKeptRevisionInOrder(t *testing.T) {
	requireServer(t)
	b, _ := newBackend(t)
	backendtest.WatchEveryRevision(t, b)
}
