package redisbackend

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/backends/redis/redistest"
)

var bg = context.Background()

func TestCRUD(t *testing.T) {
	b, _ := newBackend(t)
	backendtest.WantMissing(t, b, "/plans/a.md")

	backendtest.MustWrite(t, b, "/plans/a.md", "one\ntwo\nthree\n")
	if got := backendtest.MustRead(t, b, "/plans/a.md"); got != "one\ntwo\nthree\n" {
		t.Fatalf("Read = %q", got)
	}
	if got := backendtest.MustRead(t, b, "plans//a.md"); got != "one\ntwo\nthree\n" {
		t.Fatalf("Read of an uncleaned path = %q", got)
	}
	fc, err := b.Read(bg, &driver.ReadRequest{FilePath: "/plans/a.md", Offset: 2, Limit: 1})
	if err != nil || fc.Content != "two\n" {
		t.Fatalf("Read lines 2..2 = %q, %v", fc.Content, err)
	}

	backendtest.MustWrite(t, b, "/plans/a.md", "replaced")
	if got := backendtest.MustRead(t, b, "/plans/a.md"); got != "replaced" {
		t.Fatalf("Read after overwrite = %q", got)
	}

	backendtest.WantExactBytes(t, b, 100_000) // ~1.1 MB

	if err := b.Delete(bg, &driver.DeleteRequest{FilePath: "/plans/a.md"}); err != nil {
		t.Fatal(err)
	}
	backendtest.WantMissing(t, b, "/plans/a.md")
	if err := b.Delete(bg, &driver.DeleteRequest{FilePath: "/plans/a.md"}); err != nil {
		t.Fatalf("Delete of a missing file: %v", err)
	}
	backendtest.WantLs(t, b, "/plans", "/plans/bin.md", "/plans/empty.md")
}

func TestRootIsNotAFile(t *testing.T) {
	b, _ := newBackend(t)
	for _, p := range []string{"/", "", "/plans/.."} {
		if err := b.Write(bg, &driver.WriteRequest{FilePath: p, Content: "x"}); !errors.Is(err, fs.ErrInvalid) {
			t.Fatalf("Write(%q) = %v, want fs.ErrInvalid", p, err)
		}
	}
	backendtest.WantLs(t, b, "/")
}

func TestLsInfoNestedFolders(t *testing.T) {
	b, c := newBackend(t)
	backendtest.WantLs(t, b, "/plans")

	backendtest.MustWrite(t, b, "/plans/a.md", "a")
	backendtest.MustWrite(t, b, "/plans/sub/b.md", "bb")
	backendtest.MustWrite(t, b, "/plans/sub/deep/c.md", "ccc")
	backendtest.MustWrite(t, b, "/other/x.md", "x")

	backendtest.WantLs(t, b, "/", "/other/", "/plans/")
	backendtest.WantLs(t, b, "", "/other/", "/plans/")
	backendtest.WantLs(t, b, "/plans", "/plans/a.md", "/plans/sub/")
	backendtest.WantLs(t, b, "/plans/", "/plans/a.md", "/plans/sub/")
	backendtest.WantLs(t, b, "/plans/sub", "/plans/sub/b.md", "/plans/sub/deep/")
	backendtest.WantLs(t, b, "/plans/sub/deep", "/plans/sub/deep/c.md")
	backendtest.WantLs(t, b, "/plans/a.md") // a file lists as an empty folder
	backendtest.WantLs(t, b, "/nowhere")

	infos, err := b.LsInfo(bg, &driver.LsInfoRequest{Path: "/plans/sub/deep"})
	if err != nil || len(infos) != 1 || infos[0].Size != 3 || infos[0].ModifiedAt == "" {
		t.Fatalf("LsInfo = %+v, %v; want one entry of size 3 with a ModifiedAt", infos, err)
	}
	if _, err := time.Parse(time.RFC3339Nano, infos[0].ModifiedAt); err != nil {
		t.Fatalf("ModifiedAt %q is not RFC3339Nano: %v", infos[0].ModifiedAt, err)
	}

	// A file and a folder may share a name, as on the memory backend; the listing is in
	// path order, the file first ("-" sorts before "/", not after the folder).
	backendtest.MustWrite(t, b, "/plans/sub", "file named like a folder")
	backendtest.MustWrite(t, b, "/plans/sub-x.md", "x")
	backendtest.WantLs(t, b, "/plans", "/plans/a.md", "/plans/sub", "/plans/sub/", "/plans/sub-x.md")
	del0 := b.Delete(bg, &driver.DeleteRequest{FilePath: "/plans/sub-x.md"})
	if del0 != nil {
		t.Fatal(del0)
	}

	// Deleting the last file of a folder removes the folder from every parent left empty.
	del := func(p string) {
		t.Helper()
		if err := b.Delete(bg, &driver.DeleteRequest{FilePath: p}); err != nil {
			t.Fatal(err)
		}
	}
	del("/plans/sub/deep/c.md")
	backendtest.WantLs(t, b, "/plans/sub", "/plans/sub/b.md")
	del("/plans/sub/b.md")
	backendtest.WantLs(t, b, "/plans", "/plans/a.md", "/plans/sub")
	del("/plans/sub")
	del("/plans/a.md")
	backendtest.WantLs(t, b, "/", "/other/")
	del("/other/x.md")
	backendtest.WantLs(t, b, "/")

	// No index is left behind: the only keys that outlive the files are the group clocks.
	keys, err := c.Keys(bg, escapeGlob(b.prefix)+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{b.clockKey("/other"), b.clockKey("/plans"), b.clockKey("/plans/sub"), b.clockKey("/plans/sub/deep")}
	slices.Sort(keys)
	slices.Sort(want)
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys left after deleting everything: %q, want %q", keys, want)
	}
}

// TestStaleFolderEntryIsHiddenAndCleared: an entry for a plan folder that no longer exists
// (left by a client that died between a delete and the unlink that follows it) is not
// listed, and the listing clears it.
func TestStaleFolderEntryIsHiddenAndCleared(t *testing.T) {
	b, c := newBackend(t)
	backendtest.MustWrite(t, b, "/plans/a.md", "a")
	if err := c.HSet(bg, b.dirKey("/"), "ghost/", "").Err(); err != nil {
		t.Fatal(err)
	}
	backendtest.WantLs(t, b, "/", "/plans/")
	if ok, err := c.HExists(bg, b.dirKey("/"), "ghost/").Result(); ok || err != nil {
		t.Fatalf("stale entry still in the index: %v, %v", ok, err)
	}
}

func TestModifiedAtChangesOnEveryWrite(t *testing.T) {
	b, _ := newBackend(t)
	var last time.Time
	check := func(i int) {
		t.Helper()
		infos, err := b.LsInfo(bg, &driver.LsInfoRequest{Path: "/plans"})
		if err != nil || len(infos) != 1 {
			t.Fatalf("LsInfo = %+v, %v", infos, err)
		}
		m, err := time.Parse(time.RFC3339Nano, infos[0].ModifiedAt)
		if err != nil {
			t.Fatal(err)
		}
		if !m.After(last) {
			t.Fatalf("write %d: ModifiedAt %s not after %s", i, m, last)
		}
		last = m
	}
	for i := range 200 {
		backendtest.MustWrite(t, b, "/plans/a.md", "same size") // same size every time: only the time differs
		check(i)
	}
	old := "same size"
	if ok, err := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "same SIZE"}, &old); !ok || err != nil {
		t.Fatalf("CompareAndSwap = %v, %v", ok, err)
	}
	check(200)
	if err := b.Delete(bg, &driver.DeleteRequest{FilePath: "/plans/a.md"}); err != nil {
		t.Fatal(err)
	}
	backendtest.MustWrite(t, b, "/plans/a.md", "same size")
	check(201)
}

func TestReadAtMost(t *testing.T) {
	b, _ := newBackend(t)
	backendtest.MustWrite(t, b, "/plans/a.md", "hello world")
	backendtest.MustWrite(t, b, "/plans/empty.md", "")
	for _, tc := range []struct {
		path string
		max  int64
		want string
	}{
		{"/plans/a.md", 5, "hello"},
		{"/plans/a.md", 11, "hello world"},
		{"/plans/a.md", 12, "hello world"},
		{"/plans/a.md", 1 << 40, "hello world"},
		{"/plans/a.md", 0, ""},
		{"/plans/empty.md", 10, ""},
	} {
		got, err := b.ReadAtMost(bg, tc.path, tc.max)
		if err != nil || got != tc.want {
			t.Errorf("ReadAtMost(%s, %d) = %q, %v; want %q", tc.path, tc.max, got, err, tc.want)
		}
	}
	if _, err := b.ReadAtMost(bg, "/plans/missing.md", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadAtMost of a missing file = %v, want fs.ErrNotExist", err)
	}
}

func TestCompareAndSwap(t *testing.T) {
	b, _ := newBackend(t)
	const p = "/plans/a.md"
	cas := func(content string, old *string) bool {
		t.Helper()
		ok, err := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: p, Content: content}, old)
		if err != nil {
			t.Fatalf("CompareAndSwap: %v", err)
		}
		return ok
	}
	str := func(s string) *string { return &s }

	if cas("v1", str("")) {
		t.Fatal("absent file matched old \"\"")
	}
	backendtest.WantMissing(t, b, p)
	if !cas("v1", nil) {
		t.Fatal("create of an absent file failed")
	}
	backendtest.WantLs(t, b, "/plans", p)
	if cas("v1 again", nil) {
		t.Fatal("create-only write replaced an existing file")
	}
	if cas("v2", str("v0")) {
		t.Fatal("write with a stale old value succeeded")
	}
	if cas("v2", str("v")) || cas("v2", str("v1 ")) {
		t.Fatal("a prefix or extension of the stored bytes matched")
	}
	if got := backendtest.MustRead(t, b, p); got != "v1" {
		t.Fatalf("content after failed swaps = %q, want v1", got)
	}
	if !cas("v2", str("v1")) {
		t.Fatal("write with the current old value failed")
	}
	if got := backendtest.MustRead(t, b, p); got != "v2" {
		t.Fatalf("content = %q, want v2", got)
	}

	// An empty file exists: it matches "" and is not absent.
	backendtest.MustWrite(t, b, "/plans/e.md", "")
	if ok, _ := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/plans/e.md", Content: "x"}, nil); ok {
		t.Fatal("create-only write replaced an empty file")
	}
	if ok, _ := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/plans/e.md", Content: "x"}, str("")); !ok {
		t.Fatal("empty file did not match old \"\"")
	}

	// A create through CompareAndSwap makes its folders like Write does.
	if ok, _ := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/deep/er/f.md", Content: "f"}, nil); !ok {
		t.Fatal("create in a new folder failed")
	}
	backendtest.WantLs(t, b, "/", "/deep/", "/plans/")
	backendtest.WantLs(t, b, "/deep/er", "/deep/er/f.md")
}

func TestCompareAndDelete(t *testing.T) {
	b, _ := newBackend(t)
	const p = "/plans/sub/a.md"
	cad := func(old string) bool {
		t.Helper()
		ok, err := b.CompareAndDelete(bg, &driver.DeleteRequest{FilePath: p}, old)
		if err != nil {
			t.Fatalf("CompareAndDelete: %v", err)
		}
		return ok
	}
	if cad("") {
		t.Fatal("deleted a missing file")
	}
	backendtest.MustWrite(t, b, p, "v1")
	if cad("v0") || cad("") {
		t.Fatal("deleted with a stale old value")
	}
	if got := backendtest.MustRead(t, b, p); got != "v1" {
		t.Fatalf("content after failed deletes = %q", got)
	}
	if !cad("v1") {
		t.Fatal("delete with the current old value failed")
	}
	backendtest.WantMissing(t, b, p)
	backendtest.WantLs(t, b, "/plans")
	backendtest.WantLs(t, b, "/")
	if cad("v1") {
		t.Fatal("second delete succeeded")
	}
}

// TestConcurrentCompareAndSwap races many writers, over separate connections as separate
// machines would have, on one file: in every round all of them expect the same bytes and
// exactly one wins.
func TestConcurrentCompareAndSwap(t *testing.T) {
	b0, _ := newBackend(t)
	const clients, writers, rounds = 4, 32, 40
	backends := make([]*Backend, clients)
	for i := range backends {
		backends[i] = mustNew(t, newClient(t, redisAddr), WithPrefix(b0.prefix))
	}
	const p = "/plans/race.md"
	current := "round 0"
	backendtest.MustWrite(t, b0, p, current)
	for round := 1; round <= rounds; round++ {
		var wg sync.WaitGroup
		start := make(chan struct{})
		wins := make(chan string, writers)
		errs := make(chan error, writers)
		old := current
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := fmt.Sprintf("round %d by writer %d", round, w)
				<-start
				ok, err := backends[w%clients].CompareAndSwap(bg, &driver.WriteRequest{FilePath: p, Content: mine}, &old)
				if err != nil {
					errs <- err
				} else if ok {
					wins <- mine
				}
			}()
		}
		close(start)
		wg.Wait()
		close(wins)
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
		var winners []string
		for w := range wins {
			winners = append(winners, w)
		}
		if len(winners) != 1 {
			t.Fatalf("round %d: %d winners %q, want exactly 1", round, len(winners), winners)
		}
		if got := backendtest.MustRead(t, b0, p); got != winners[0] {
			t.Fatalf("round %d: stored %q, winner wrote %q", round, got, winners[0])
		}
		current = winners[0]
	}
}

// TestConcurrentCreateAndDelete races create-only writes and conditional deletes: every
// create must see the file absent and every delete the bytes it names.
func TestConcurrentCreateAndDelete(t *testing.T) {
	b, _ := newBackend(t)
	const p = "/plans/x/flip.md"
	const writers, rounds = 16, 30
	for round := range rounds {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var created []string
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mine := fmt.Sprintf("%d/%d", round, w)
				ok, err := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: p, Content: mine}, nil)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					created = append(created, mine)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(created) != 1 {
			t.Fatalf("round %d: %d creates succeeded, want 1", round, len(created))
		}
		var deletes int
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := b.CompareAndDelete(bg, &driver.DeleteRequest{FilePath: p}, created[0])
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					deletes++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if deletes != 1 {
			t.Fatalf("round %d: %d deletes succeeded, want 1", round, deletes)
		}
		backendtest.WantLs(t, b, "/plans")
	}
}

// TestRetriedMutationReportsItsOwnSuccess replays a conditional script with the token of a
// call that already applied, as go-redis does when a connection drops after Redis ran the
// script but before the reply arrived: the replay reports success, a different call does not.
func TestRetriedMutationReportsItsOwnSuccess(t *testing.T) {
	b, c := newBackend(t)
	const p = "/plans/a.md"
	backendtest.MustWrite(t, b, p, "v1")
	idx, fields := b.chain(p)
	run := func(s *redis.Script, mode, content, old, token string) int {
		t.Helper()
		keys := append([]string{b.contentKey(p), b.clockKey("/plans"), b.memoKey("/plans", token)}, idx...)
		args := []any{mode, content, old, token, "", b.channel("/plans"), p, ""}
		for _, f := range fields {
			args = append(args, f)
		}
		n, err := s.Run(bg, c, keys, args...).Int()
		if err != nil {
			t.Fatal(err)
		}
		return n & resultApplied
	}
	if run(writeScript, "c", "v2", "v1", "token-1") != 1 {
		t.Fatal("first swap failed")
	}
	if run(writeScript, "c", "v2", "v1", "token-1") != 1 {
		t.Fatal("replay of an applied swap reported a conflict")
	}
	if run(writeScript, "c", "v2", "v1", "token-2") != 0 {
		t.Fatal("another caller with the same stale value succeeded")
	}
	if got := backendtest.MustRead(t, b, p); got != "v2" {
		t.Fatalf("content = %q", got)
	}
	first := run(deleteScript, "c", "", "v2", "token-3")
	replay := run(deleteScript, "c", "", "v2", "token-3")
	if first != 1 || replay != 1 {
		t.Fatal("replay of an applied delete reported a conflict")
	}
	if run(deleteScript, "c", "", "v2", "token-4") != 0 {
		t.Fatal("another delete of the same bytes succeeded")
	}
	backendtest.WantMissing(t, b, p)
	if ttl := c.PTTL(bg, b.memoKey("/plans", "token-3")).Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("memo TTL = %v, want within a minute", ttl)
	}
}

func TestPrefixesAreIsolated(t *testing.T) {
	b1, c := newBackend(t)
	prefix2 := testPrefix(t)
	t.Cleanup(func() { dropPrefix(c, prefix2) })
	b2 := mustNew(t, c, WithPrefix(prefix2))
	backendtest.MustWrite(t, b1, "/plans/a.md", "one")
	backendtest.MustWrite(t, b2, "/plans/b.md", "two")
	backendtest.WantLs(t, b1, "/plans", "/plans/a.md")
	backendtest.WantLs(t, b2, "/plans", "/plans/b.md")
	backendtest.WantMissing(t, b2, "/plans/a.md")
	if mustNew(t, c).prefix != DefaultPrefix {
		t.Fatal("default prefix not applied")
	}
}

func TestCanceledContextWritesNothing(t *testing.T) {
	b, _ := newBackend(t)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	old := "x"
	if err := b.Write(ctx, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Write = %v", err)
	}
	if _, err := b.CompareAndSwap(ctx, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "x"}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("CompareAndSwap = %v", err)
	}
	if _, err := b.CompareAndSwap(ctx, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "x"}, &old); !errors.Is(err, context.Canceled) {
		t.Fatalf("CompareAndSwap = %v", err)
	}
	if _, err := b.LsInfo(ctx, &driver.LsInfoRequest{Path: "/plans"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("LsInfo = %v", err)
	}
	backendtest.WantMissing(t, b, "/plans/a.md")
	backendtest.WantLs(t, b, "/")
}

// TestDeadlineCutsACallInFlight pauses the server so a call hangs, and checks that the
// context deadline, not the client's read timeout, ends it.
func TestDeadlineCutsACallInFlight(t *testing.T) {
	b, _ := newBackend(t)
	backendtest.MustWrite(t, b, "/plans/a.md", "v1")
	admin := newClient(t, redisAddr)
	paused := make(chan error, 1)
	go func() { paused <- admin.Do(bg, "CLIENT", "PAUSE", 1500, "ALL").Err() }()
	if err := <-paused; err != nil {
		t.Skipf("CLIENT PAUSE not available: %v", err)
	}
	defer admin.Do(bg, "CLIENT", "UNPAUSE")
	ctx, cancel := context.WithTimeout(bg, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := b.Read(ctx, &driver.ReadRequest{FilePath: "/plans/a.md"})
	if err == nil {
		t.Fatal("Read on a paused server succeeded")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Read returned after %v, want about the 200ms deadline", d)
	}
}

// TestUnreachableServerIsAnError checks that every call against an address nobody listens
// on fails with an error that is not mistaken for a missing file.
func TestUnreachableServerIsAnError(t *testing.T) {
	port, err := redistest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	if _, err := New(bg, c); err == nil || !isConnErr(err) {
		t.Fatalf("New on an unreachable server = %v, want a connection error", err)
	}
	b := &Backend{client: c, prefix: DefaultPrefix, sharded: true} // as New made it before the server went away
	old := "x"
	check := func(op string, err error) {
		t.Helper()
		if err == nil || errors.Is(err, fs.ErrNotExist) || !isConnErr(err) {
			t.Fatalf("%s on an unreachable server = %v, want a connection error", op, err)
		}
	}
	_, err = b.Read(bg, &driver.ReadRequest{FilePath: "/plans/a.md"})
	check("Read", err)
	_, err = b.ReadAtMost(bg, "/plans/a.md", 10)
	check("ReadAtMost", err)
	_, err = b.LsInfo(bg, &driver.LsInfoRequest{Path: "/plans"})
	check("LsInfo", err)
	check("Write", b.Write(bg, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "x"}))
	_, err = b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/plans/a.md", Content: "x"}, &old)
	check("CompareAndSwap", err)
	_, err = b.CompareAndDelete(bg, &driver.DeleteRequest{FilePath: "/plans/a.md"}, old)
	check("CompareAndDelete", err)
	check("Delete", b.Delete(bg, &driver.DeleteRequest{FilePath: "/plans/a.md"}))
}
