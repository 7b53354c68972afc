package redisbackend

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/driver"
)

// A keeping swap keeps exactly the bytes it replaced, and only when it lands: a create
// keeps nothing, a swap from other bytes writes nothing at all, and a swap that lands
// writes the file and the kept bytes together, lists the kept file in its folder (linked
// into its parents) with its size, stamped after the file, and publishes both writes.
func TestKeepingSwapKeepsTheReplacedBytesOnlyWhenItLands(t *testing.T) {
	b, _ := newBackend(t)
	const p, k1, k2 = "/plans/pair.md", "/plans/.history/pair/1.0a0b0c0d", "/plans/.history/pair/2.1a2b3c4d"
	planEvents := backendtest.MustWatch(t, b, "/plans")
	keptEvents := backendtest.MustWatch(t, b, "/plans/.history/pair")
	one, two := "revision: 1\n- [ ] step é\x00\n", "revision: 2\n- [x] step é\x00\n"
	ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: one}, nil, k1)
	if err != nil || !ok {
		t.Fatalf("create = %v, %v", ok, err)
	}
	backendtest.WantEvent(t, planEvents, driver.FileEvent{Path: p, Content: one})
	backendtest.WantMissing(t, b, k1)
	stamp, _, err := b.FolderStamp(bg, "/plans")
	if err != nil {
		t.Fatal(err)
	}
	ok, err = b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "lost"}, ptr("other"), k1)
	if err != nil || ok {
		t.Fatalf("a swap from other bytes = %v, %v; want false", ok, err)
	}
	backendtest.WantMissing(t, b, k1)
	if again, _, _ := b.FolderStamp(bg, "/plans"); again != stamp || backendtest.MustRead(t, b, p) != one {
		t.Fatal("a refused swap changed something")
	}
	backendtest.WantLs(t, b, "/plans", "/plans/pair.md")

	ok, err = b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: two}, &one, k1)
	if err != nil || !ok {
		t.Fatalf("swap = %v, %v", ok, err)
	}
	backendtest.WantEvent(t, planEvents, driver.FileEvent{Path: p, Content: two})
	backendtest.WantEvent(t, keptEvents, driver.FileEvent{Path: k1, Content: one})
	ok, err = b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "three"}, &two, k2)
	if err != nil || !ok {
		t.Fatalf("second swap = %v, %v", ok, err)
	}
	backendtest.WantEvent(t, keptEvents, driver.FileEvent{Path: k2, Content: two})
	for path, want := range map[string]string{p: "three", k1: one, k2: two} {
		if got := backendtest.MustRead(t, b, path); got != want {
			t.Fatalf("%s = %q, want %q", path, got, want)
		}
	}
	backendtest.WantLs(t, b, "/plans", "/plans/.history/", "/plans/pair.md")
	backendtest.WantLs(t, b, "/plans/.history", "/plans/.history/pair/")
	kept, err := b.LsInfo(bg, &driver.LsInfoRequest{Path: "/plans/.history/pair"})
	if err != nil || len(kept) != 2 || kept[0].Path != k1 || kept[1].Path != k2 {
		t.Fatalf("the kept folder lists %+v, %v; want %s and %s", kept, err, k1, k2)
	}
	if kept[0].Size != int64(len(one)) || kept[1].Size != int64(len(two)) {
		t.Fatalf("kept sizes %d and %d, want %d and %d", kept[0].Size, kept[1].Size, len(one), len(two))
	}
	plans, err := b.LsInfo(bg, &driver.LsInfoRequest{Path: "/plans"})
	if err != nil {
		t.Fatal(err)
	}
	file := plans[len(plans)-1]
	if file.Path != p || file.Size != int64(len("three")) {
		t.Fatalf("/plans lists %+v last, want %s of size 5", file, p)
	}
	at := func(fi driver.FileInfo) time.Time {
		t.Helper()
		tm, err := time.Parse(time.RFC3339Nano, fi.ModifiedAt)
		if err != nil {
			t.Fatalf("%s: ModifiedAt %q: %v", fi.Path, fi.ModifiedAt, err)
		}
		return tm
	}
	if !at(kept[0]).Before(at(kept[1])) || !at(file).Before(at(kept[1])) {
		t.Fatalf("ModifiedAt: kept %v then %v, file %v; want the last kept file stamped after the file", kept[0].ModifiedAt, kept[1].ModifiedAt, file.ModifiedAt)
	}
	if again, _, _ := b.FolderStamp(bg, "/plans"); again == stamp {
		t.Fatal("the folder stamp stayed through keeping swaps")
	}
}

// A keep path outside the file's group (another hash slot) still keeps the replaced bytes
// when the swap lands, and nothing when it is refused; a keep path equal to the file's
// own is refused before anything is written.
func TestKeepingSwapIntoAnotherGroup(t *testing.T) {
	b, _ := newBackend(t)
	const p, k = "/plans/a.md", "/archive/a/1.00000000"
	backendtest.MustWrite(t, b, p, "v1")
	ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "v2"}, ptr("v0"), k)
	if err != nil || ok {
		t.Fatalf("a swap from other bytes = %v, %v; want false", ok, err)
	}
	backendtest.WantMissing(t, b, k)
	ok, err = b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "v2"}, ptr("v1"), k)
	if err != nil || !ok {
		t.Fatalf("swap = %v, %v", ok, err)
	}
	if backendtest.MustRead(t, b, p) != "v2" || backendtest.MustRead(t, b, k) != "v1" {
		t.Fatalf("after the swap %s = %q and %s = %q", p, backendtest.MustRead(t, b, p), k, backendtest.MustRead(t, b, k))
	}
	backendtest.WantLs(t, b, "/", "/archive/", "/plans/")
	ok, err = b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "v3"}, ptr("v2"), "plans//a.md")
	if ok || !errors.Is(err, driver.ErrNotWritten) || !errors.Is(err, fs.ErrInvalid) {
		t.Fatalf("keeping a file at its own path = %v, %v; want ErrNotWritten and fs.ErrInvalid", ok, err)
	}
	if got := backendtest.MustRead(t, b, p); got != "v2" {
		t.Fatalf("%s = %q after a refused call", p, got)
	}
}

// A keeping swap of a file whose folder indexes were lost (evicted, or deleted behind the
// Backend's back) lists the file again and links every folder on its way and on the kept
// file's way up to the root, as a write that creates them does, and still keeps the
// replaced bytes.
func TestKeepingSwapRelinksWhatALostIndexUnlisted(t *testing.T) {
	b, c := newBackend(t)
	const p, k1, k2 = "/team/.plans/a.md", "/team/.kept/a/1.00000000", "/team/.kept/a/2.00000000"
	backendtest.MustWrite(t, b, p, "v1")
	if ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "v2"}, ptr("v1"), k1); err != nil || !ok {
		t.Fatalf("first swap = %v, %v", ok, err)
	}
	if err := c.Del(bg, b.dirKey("/team/.plans"), b.dirKey("/team"), b.dirKey("/")).Err(); err != nil {
		t.Fatal(err)
	}
	backendtest.WantLs(t, b, "/")
	if ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "v3"}, ptr("v2"), k2); err != nil || !ok {
		t.Fatalf("swap = %v, %v", ok, err)
	}
	backendtest.WantLs(t, b, "/", "/team/")
	backendtest.WantLs(t, b, "/team", "/team/.kept/", "/team/.plans/")
	backendtest.WantLs(t, b, "/team/.plans", p)
	backendtest.WantLs(t, b, "/team/.kept", "/team/.kept/a/")
	backendtest.WantLs(t, b, "/team/.kept/a", k1, k2)
	if backendtest.MustRead(t, b, k2) != "v2" {
		t.Fatalf("kept %q, want v2", backendtest.MustRead(t, b, k2))
	}
}

// A keeping swap sent again after it landed (its reply lost) reports that it landed, even
// when another swap came after it and a prune already removed the file it kept: the memo
// token records the call, not the kept file. A new call from the same stale bytes is
// refused.
func TestResentKeepingSwapReportsItLandedAfterItsKeptFileWent(t *testing.T) {
	b, _ := newBackend(t)
	const p, k = "/plans/resent.md", "/plans/.history/resent/1.aaaaaaaa"
	backendtest.MustWrite(t, b, p, "one")
	m, one, err := b.keeping(p, "two", "one", k)
	if err != nil || !one {
		t.Fatalf("keeping = %v, %v", one, err)
	}
	if n, err := b.run(bg, m); err != nil || n&resultApplied == 0 {
		t.Fatalf("first send = %d, %v", n, err)
	}
	ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "three"}, ptr("two"), "/plans/.history/resent/2.bbbbbbbb")
	if err != nil || !ok {
		t.Fatalf("the next write = %v, %v", ok, err)
	}
	if err := b.DeleteLazily(bg, k); err != nil {
		t.Fatal(err)
	}
	if n, err := b.run(bg, m); err != nil || n&resultApplied == 0 {
		t.Fatalf("the resend = %d, %v; want it reported as landed", n, err)
	}
	backendtest.WantMissing(t, b, k)
	ok, err = b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "two"}, ptr("one"), k)
	if err != nil || ok {
		t.Fatalf("a new call from the stale bytes = %v, %v; want refused", ok, err)
	}
	if got := backendtest.MustRead(t, b, p); got != "three" {
		t.Fatalf("%s = %q, want three", p, got)
	}
}

// With WithReplicaAcks a keeping swap waits for replicas whether it lands or is refused: on
// a primary with no replica both answer ErrNotReplicated (a refusal the caller could not
// trust to be replicated is never a bare false), and once a replica is attached a swap
// that lands returns with the kept bytes already on the replica.
func TestKeepingSwapWaitsForReplicasEvenWhenRefused(t *testing.T) {
	primary := ownServer(t, false, "--repl-diskless-sync-delay", "0") // a replica syncs at once
	const p, k1, k2 = "/plans/a.md", "/plans/.history/a/1.00000000", "/plans/.history/a/2.00000000"
	backendtest.MustWrite(t, mustNew(t, newClient(t, primary.Addr())), p, "v1")
	b := mustNew(t, newClient(t, primary.Addr()), WithReplicaAcks(1, 50*time.Millisecond))
	ok, err := b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "v2"}, ptr("v1"), k1)
	if !errors.Is(err, ErrNotReplicated) {
		t.Fatalf("a swap with no replica = %v, %v; want ErrNotReplicated", ok, err)
	}
	if backendtest.MustRead(t, b, p) != "v2" || backendtest.MustRead(t, b, k1) != "v1" {
		t.Fatal("the primary did not apply the swap it ran")
	}
	ok, err = b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "v3"}, ptr("v1"), k2)
	if !errors.Is(err, ErrNotReplicated) {
		t.Fatalf("a refused swap with no replica = %v, %v; want ErrNotReplicated", ok, err)
	}
	backendtest.WantMissing(t, b, k2)

	replica := ownServer(t, false, "--replicaof", "127.0.0.1", strconv.Itoa(primary.Port()))
	rc := newClient(t, replica.Addr())
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if info := rc.Info(bg, "replication").Val(); strings.Contains(info, "master_link_status:up") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica did not sync within 10 s")
		}
	}
	b = mustNew(t, newClient(t, primary.Addr()), WithReplicaAcks(1, 5*time.Second))
	ok, err = b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "v3"}, ptr("v2"), k2)
	if err != nil || !ok {
		t.Fatalf("a swap with a replica = %v, %v", ok, err)
	}
	if got, err := rc.Get(bg, b.contentKey(k2)).Result(); err != nil || got != "v2" {
		t.Fatalf("the replica holds %q, %v at %s when the swap returns; want v2", got, err, k2)
	}
	ok, err = b.CompareAndSwapKeeping(bg, &driver.WriteRequest{FilePath: p, Content: "v4"}, ptr("v2"), "/plans/.history/a/9.00000000")
	if err != nil || ok {
		t.Fatalf("a refused swap with a replica = %v, %v; want false, nil", ok, err)
	}
}
