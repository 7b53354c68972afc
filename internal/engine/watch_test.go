package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/childtest"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/localfs"
	"github.com/einoplan/plan/internal/memfs"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const watchBody = "# Ship\n- [ ] Build\n- [ ] Test\n"

// watchChildEnv names the plans root of TestWatchWriterProcess, run as a child process.
const watchChildEnv = "PLAN_WATCH_CHILD"

// TestWatchWriterProcess is the writer side of TestWatchSeesOtherProcess: it reads one
// command a line from stdin, runs it on its own Store and prints "ok" or the error.
func TestWatchWriterProcess(t *testing.T) {
	childtest.SkipUnlessChild(t)
	root := os.Getenv(watchChildEnv)
	b, err := localfs.New(root)
	require.NoError(t, err)
	defer b.Close()
	s := mustStore(t, StoreConfig{Backend: b, DefaultAuthor: "child"})
	ctx := context.Background()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var err error
		switch in.Text() {
		case "create":
			_, err = s.Put(ctx, Update{Name: "ship", Content: ptrTo(watchBody)})
		case "step":
			_, _, err = s.updateStep(ctx, "ship", 1, document.StepCompleted, "", nil)
		case "status":
			_, err = s.SetStatus(ctx, "ship", "done", nil)
		case "delete":
			_, err = s.Delete(ctx, "ship", nil)
		default:
			err = fmt.Errorf("unknown command %q", in.Text())
		}
		if err != nil {
			fmt.Println("error:", err)
		} else {
			fmt.Println("ok")
		}
	}
}

// next returns the next Change, failing the test after a few seconds.
func Next(t *testing.T, ch <-chan Change) Change {
	t.Helper()
	select {
	case c, ok := <-ch:
		require.True(t, ok, "watch channel closed early")
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no change within 5s")
		return Change{}
	}
}

// putShip puts plan ship through s, returning a context that ends with the test.
func putShip(t *testing.T, s *Store) context.Context {
	t.Helper()
	ctx := t.Context()
	_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo(watchBody)})
	require.NoError(t, err)
	return ctx
}

// tickedWatch watches s with opts, polling on each send to tick.
func tickedWatch(t *testing.T, ctx context.Context, s *Store, opts watchOptions) (<-chan Change, chan<- time.Time) {
	t.Helper()
	tick := make(chan time.Time)
	opts.tick = tick
	ch, err := s.watch(ctx, opts)
	require.NoError(t, err)
	return ch, tick
}

// quiet asserts that nothing arrives on ch for d.
func quiet(t *testing.T, ch <-chan Change, d time.Duration) {
	t.Helper()
	select {
	case c := <-ch:
		t.Fatalf("unexpected change %+v", c)
	case <-time.After(d):
	}
}

// watchedPair makes two Stores on one MemoryBackend, puts plan name through mine and
// watches mine, polling every 5ms, until cancel.
func watchedPair(t *testing.T, name string) (mine, other *Store, ch <-chan Change, cancel context.CancelFunc) {
	t.Helper()
	b := memfs.New()
	mine, other = storeOn(t, b, ""), storeOn(t, b, "")
	ctx := context.Background()
	_, err := mine.Put(ctx, Update{Name: name, Content: ptrTo(watchBody)})
	require.NoError(t, err)
	wctx, cancel := context.WithCancel(ctx)
	ch, err = mine.Watch(wctx, WatchOptions{Interval: 5 * time.Millisecond})
	require.NoError(t, err)
	return mine, other, ch, cancel
}

// A watcher in this process sees, without polling on its side, each change another
// process makes on the same folder, in order and with what changed.
func TestWatchSeesOtherProcess(t *testing.T) {
	root := t.TempDir()
	s := storeOn(t, newLocal(t, root), "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := s.Watch(ctx, WatchOptions{Interval: 20 * time.Millisecond})
	require.NoError(t, err)

	child := childtest.Start(t, "TestWatchWriterProcess", map[string]string{watchChildEnv: root})
	defer child.Wait()
	stdin, out := child.Stdin, child.Stdout
	do := func(command string) {
		t.Helper()
		_, err := io.WriteString(stdin, command+"\n")
		require.NoError(t, err)
		line, err := out.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "ok\n", line)
	}

	do("create")
	c := Next(t, ch)
	assert.Equal(t, Change{Name: "ship", Action: document.ActionWrite, Revision: 1, Created: true, Title: "Ship", Status: "draft",
		Author: "child", Actor: "child", Progress: document.Progress{Total: 2, Pending: 2}}, c)
	do("step")
	c = Next(t, ch)
	assert.Equal(t, int64(2), c.Revision)
	assert.False(t, c.Created)
	assert.Equal(t, document.Progress{Total: 2, Pending: 1, Completed: 1, Percent: 50}, c.Progress)
	do("status")
	c = Next(t, ch)
	assert.Equal(t, int64(3), c.Revision)
	assert.Equal(t, "done", c.Status)
	do("delete")
	assert.Equal(t, Change{Name: "ship", Action: document.ActionDelete, Revision: 3, Title: "Ship", Status: "done", Author: "child"}, Next(t, ch))
	quiet(t, ch, 100*time.Millisecond)
}

// Any Backend without a driver.Watcher is polled; the Store's own writes are seen like others'.
func TestWatchPollsOtherBackends(t *testing.T) {
	ctx := context.Background()
	mine, other, ch, cancel := watchedPair(t, "before")
	quiet(t, ch, 30*time.Millisecond) // the starting point is not delivered

	for i := 1; i <= 3; i++ {
		s := mine
		if i%2 == 0 {
			s = other
		}
		_, err := s.SetStatus(ctx, "before", fmt.Sprintf("s%d", i), nil)
		require.NoError(t, err)
		c := Next(t, ch)
		assert.Equal(t, int64(i+1), c.Revision)
		assert.Equal(t, fmt.Sprintf("s%d", i), c.Status)
	}
	cancel()
	select {
	case _, ok := <-ch:
		for ok {
			_, ok = <-ch
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the channel is not closed after ctx ends")
	}
}

// Without history, two writes between polls skip a revision, and a new plan may be first
// seen past its create: the watcher says so with a resync, then delivers the latest state.
func TestWatchGapSendsResync(t *testing.T) {
	b := memfs.New()
	s := mustStore(t, StoreConfig{Backend: b, HistoryLimit: -1})
	ctx := putShip(t, s)
	ch, tick := tickedWatch(t, ctx, s, watchOptions{})

	_, err := s.SetStatus(ctx, "ship", "a", nil)
	require.NoError(t, err)
	_, err = s.SetStatus(ctx, "ship", "b", nil)
	require.NoError(t, err)
	tick <- time.Now()
	assert.Equal(t, Change{Action: document.ActionResync}, Next(t, ch))
	c := Next(t, ch)
	assert.Equal(t, int64(3), c.Revision)
	assert.Equal(t, "b", c.Status)

	_, err = s.SetStatus(ctx, "ship", "c", nil)
	require.NoError(t, err)
	tick <- time.Now()
	c = Next(t, ch)
	assert.Equal(t, document.ActionWrite, c.Action, "one revision on: no resync")
	assert.Equal(t, int64(4), c.Revision)

	_, err = s.Put(ctx, Update{Name: "dock", Content: ptrTo(watchBody)})
	require.NoError(t, err)
	_, err = s.SetStatus(ctx, "dock", "a", nil)
	require.NoError(t, err)
	tick <- time.Now()
	assert.Equal(t, Change{Action: document.ActionResync}, Next(t, ch), "a new plan first seen past its create")
	c = Next(t, ch)
	assert.Equal(t, "dock", c.Name)
	assert.True(t, c.Created)
	assert.Equal(t, int64(2), c.Revision)
}

// A receiver that does not keep up never blocks the watcher: changes that do not fit are
// dropped and one resync takes their place once there is room.
func TestWatchSlowReceiverGetsOneResync(t *testing.T) {
	s := storeOn(t, memfs.New(), "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, tick := tickedWatch(t, ctx, s, watchOptions{WatchOptions: WatchOptions{Buffer: 2}})
	for i := range 5 {
		_, err := s.Put(ctx, Update{Name: fmt.Sprintf("p%d", i), Content: ptrTo(watchBody)})
		require.NoError(t, err)
	}
	tick <- time.Now()
	tick <- time.Now() // the first poll is over: its changes filled the buffer
	var got []Change
	for range 3 {
		got = append(got, Next(t, ch))
	}
	assert.Equal(t, "p0", got[0].Name)
	assert.Equal(t, "p1", got[1].Name)
	assert.Equal(t, Change{Action: document.ActionResync}, got[2])
	quiet(t, ch, 50*time.Millisecond)

	_, err := s.SetStatus(ctx, "p4", "late", nil)
	require.NoError(t, err)
	tick <- time.Now()
	c := Next(t, ch)
	assert.Equal(t, "p4", c.Name)
	assert.Equal(t, "late", c.Status)
}

// countingBackend counts LsInfo calls and says what it wraps, so capabilities of the
// wrapped Backend are still found.
type countingBackend struct {
	driver.Backend
	Lists atomic.Int64
}

func (c *countingBackend) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	if req.Path == "/plans" { // not the history folders a write prunes
		c.Lists.Add(1)
	}
	return c.Backend.LsInfo(ctx, req)
}

func (c *countingBackend) Unwrap() driver.Backend { return c.Backend }

// On LocalBackend an idle poll does not list the folder: the folder's stamp shows nothing
// was renamed or removed there. A write changes the stamp and is seen.
func TestWatchLocalIdlePollDoesNotList(t *testing.T) {
	root := t.TempDir()
	counting := &countingBackend{Backend: newLocal(t, root)}
	s := storeOn(t, counting, "")
	ctx := putShip(t, s)
	past := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(root, "plans"), past, past))

	ch, tick := tickedWatch(t, ctx, s, watchOptions{fullScan: time.Hour})
	require.Equal(t, int64(1), counting.Lists.Load(), "the starting snapshot")
	for range 6 {
		tick <- time.Now() // a tick is taken once the previous poll is over
	}
	assert.Equal(t, int64(1), counting.Lists.Load(), "idle polls list nothing")
	quiet(t, ch, 20*time.Millisecond)

	other := storeOn(t, newLocal(t, root), "")
	_, err := other.SetStatus(ctx, "ship", "done", nil)
	require.NoError(t, err)
	tick <- time.Now()
	c := Next(t, ch)
	assert.Equal(t, "done", c.Status)
	assert.Equal(t, int64(2), c.Revision)
}

// feedBackend is a MemoryBackend that is also a driver.Watcher: every write and delete is pushed
// to the subscribers, as the Redis backend publishes them from its write script.
type feedBackend struct {
	*memfs.Backend
	mu     sync.Mutex
	subs   []chan driver.FileEvent
	lists  atomic.Int64
	failed bool
}

func (f *feedBackend) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	if req.Path == "/plans" { // not the history folders writes and deletes prune
		f.lists.Add(1)
	}
	return f.Backend.LsInfo(ctx, req)
}

func (f *feedBackend) WatchFiles(ctx context.Context, dir string) (<-chan driver.FileEvent, error) {
	if f.failed {
		return nil, errors.New("feed unavailable")
	}
	ch := make(chan driver.FileEvent, 64)
	f.mu.Lock()
	f.subs = append(f.subs, ch)
	f.mu.Unlock()
	return ch, nil
}

func (f *feedBackend) push(ev driver.FileEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.subs {
		ch <- ev
	}
}

func (f *feedBackend) closeFeeds() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.subs {
		close(ch)
	}
	f.subs = nil
}

func (f *feedBackend) Write(ctx context.Context, req *driver.WriteRequest) error {
	if err := f.Backend.Write(ctx, req); err != nil {
		return err
	}
	f.push(driver.FileEvent{Path: req.FilePath, Content: req.Content})
	return nil
}

// CompareAndSwap and CompareAndDelete push too: a MemoryBackend is a driver.Swapper, so the Store
// writes through them.
func (f *feedBackend) CompareAndSwap(ctx context.Context, req *driver.WriteRequest, old *string) (bool, error) {
	ok, err := f.Backend.CompareAndSwap(ctx, req, old)
	if ok {
		f.push(driver.FileEvent{Path: req.FilePath, Content: req.Content})
	}
	return ok, err
}

func (f *feedBackend) CompareAndDelete(ctx context.Context, req *driver.DeleteRequest, old string) (bool, error) {
	ok, err := f.Backend.CompareAndDelete(ctx, req, old)
	if ok {
		f.push(driver.FileEvent{Path: req.FilePath, Deleted: true})
	}
	return ok, err
}

func (f *feedBackend) Delete(ctx context.Context, req *driver.DeleteRequest) error {
	if err := f.Backend.Delete(ctx, req); err != nil {
		return err
	}
	f.push(driver.FileEvent{Path: req.FilePath, Deleted: true})
	return nil
}

// A Backend that pushes changes is never polled; files that are not plans are ignored, a
// pushed resync is passed on, and a feed that ends gives way to polling.
func TestWatchUsesPushFeed(t *testing.T) {
	feed := &feedBackend{Backend: memfs.New()}
	s := storeOn(t, feed, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := s.Watch(ctx, WatchOptions{Interval: 5 * time.Millisecond})
	require.NoError(t, err)

	_, err = s.Put(ctx, Update{Name: "ship", Content: ptrTo(watchBody)})
	require.NoError(t, err)
	c := Next(t, ch)
	assert.True(t, c.Created)
	assert.Equal(t, int64(1), c.Revision)
	_, err = s.Delete(document.WithActor(ctx, "bo"), "ship", nil) // also writes the tombstone /plans/.deleted/ship
	require.NoError(t, err)
	assert.Equal(t, Change{Name: "ship", Action: document.ActionDelete, Revision: 1, Title: "Ship", Status: "draft", Actor: "bo"}, Next(t, ch),
		"the tombstone names who deleted it")
	_, err = s.Put(ctx, Update{Name: "ship", Content: ptrTo(watchBody)})
	require.NoError(t, err)
	c = Next(t, ch)
	assert.True(t, c.Created)
	assert.Equal(t, int64(2), c.Revision, "revisions continue after a delete")
	feed.push(driver.FileEvent{Path: "/plans/.ship.md.tmp-1", Content: "x"})
	feed.push(driver.FileEvent{Path: "/plans/notes.txt", Content: "x"})
	feed.push(driver.FileEvent{Path: "/elsewhere/ship.md", Content: document.EncodePlan(&document.Plan{Title: "other", Revision: 9})})
	feed.push(driver.FileEvent{Path: "/plans/ship.md", Content: "not a plan"})
	quiet(t, ch, 50*time.Millisecond)
	assert.Equal(t, int64(1), feed.lists.Load(), "only the starting snapshot listed")

	feed.push(driver.FileEvent{Resync: true})
	assert.Equal(t, Change{Action: document.ActionResync}, Next(t, ch))

	feed.closeFeeds()
	assert.Equal(t, Change{Action: document.ActionResync}, Next(t, ch))
	_, err = s.SetStatus(ctx, "ship", "polled", nil)
	require.NoError(t, err)
	c = Next(t, ch)
	assert.Equal(t, "polled", c.Status)
	assert.Equal(t, int64(3), c.Revision)
}

// Watch refuses a negative interval or buffer, and fails with backend_error when the Backend's
// change feed cannot start.
func TestWatchRefusesBadOptionsAndFailedFeed(t *testing.T) {
	ctx := context.Background()
	s := storeOn(t, memfs.New(), "")
	_, err := s.Watch(ctx, WatchOptions{Interval: -1})
	assert.Error(t, err)
	_, err = s.Watch(ctx, WatchOptions{Buffer: -1})
	assert.Error(t, err)

	failing := storeOn(t, &feedBackend{Backend: memfs.New(), failed: true}, "")
	_, err = failing.Watch(ctx)
	assert.Equal(t, document.CodeBackendError, document.CodeOf(err))
	assert.True(t, strings.Contains(err.Error(), "feed unavailable"))
}

// An approval made through another Store is seen as one, a revoke as a write.
func TestWatchSeesApprovals(t *testing.T) {
	ctx := context.Background()
	_, other, ch, cancel := watchedPair(t, "ship")
	defer cancel()
	_, err := other.Approve(ctx, "ship", 1, "ana")
	require.NoError(t, err)
	c := Next(t, ch)
	assert.Equal(t, document.ActionApprove, c.Action)
	assert.EqualValues(t, 2, c.Revision)
	_, err = other.Revoke(ctx, "ship")
	require.NoError(t, err)
	c = Next(t, ch)
	assert.Equal(t, document.ActionRevoke, c.Action, "history tells a revoke from a write")
	assert.EqualValues(t, 3, c.Revision)
}

// flakyMemory is a MemoryBackend, embedded and unwrapped to, whose listings of the plans
// folder (lists) or reads (reads) fail while failing is set.
type flakyMemory struct {
	*memfs.Backend
	lists, reads bool
	failing      atomic.Bool
}

func (f *flakyMemory) Unwrap() driver.Backend { return f.Backend }

func (f *flakyMemory) fails(on bool) error {
	if on && f.failing.Load() {
		return errors.New("transient")
	}
	return nil
}

func (f *flakyMemory) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	if err := f.fails(f.lists && req.Path == "/plans"); err != nil {
		return nil, err
	}
	return f.Backend.LsInfo(ctx, req)
}

func (f *flakyMemory) Read(ctx context.Context, req *driver.ReadRequest) (*driver.FileContent, error) {
	if err := f.fails(f.reads); err != nil {
		return nil, err
	}
	return f.Backend.Read(ctx, req)
}

func (f *flakyMemory) ReadAtMost(ctx context.Context, p string, max int64) (string, error) {
	if err := f.fails(f.reads); err != nil {
		return "", err
	}
	return f.Backend.ReadAtMost(ctx, p, max)
}

// A poll whose listing, or whose read of a changed plan, fails is retried at the next poll,
// though the folder's stamp did not move since.
func TestWatchRetriesAFailedPollAtTheNext(t *testing.T) {
	for _, c := range []struct {
		name         string
		lists, reads bool
	}{{"listing", true, false}, {"read", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b := &flakyMemory{Backend: memfs.New(), lists: c.lists, reads: c.reads}
			s := storeOn(t, b, "")
			writer := storeOn(t, b.Backend, "")
			ch, tick := tickedWatch(t, ctx, s, watchOptions{fullScan: time.Hour})
			_, err := writer.Put(ctx, Update{Name: "ship", Content: ptrTo(watchBody)})
			require.NoError(t, err)
			b.failing.Store(true)
			tick <- time.Now() // this poll fails
			b.failing.Store(false)
			tick <- time.Now()
			select {
			case change := <-ch:
				assert.Equal(t, "ship", change.Name)
				assert.True(t, change.Created)
			case <-time.After(5 * time.Second):
				t.Fatal("the create was not delivered by the poll after the failed one")
			}
		})
	}
}

// changesUntilQuiet returns what arrives on ch until nothing more does for a while.
func changesUntilQuiet(ch <-chan Change) []Change {
	var got []Change
	for {
		select {
		case c := <-ch:
			got = append(got, c)
		case <-time.After(200 * time.Millisecond):
			return got
		}
	}
}

// A plan deleted and created again between two polls is delivered as what happened: the
// delete of the plan the watcher knew, then the create, with no resync (history keeps both).
func TestWatchDeliversADeleteBeforeARecreate(t *testing.T) {
	s := storeOn(t, memfs.New(), "")
	ctx := putShip(t, s)
	_, err := s.SetStatus(ctx, "ship", "a", nil)
	require.NoError(t, err)
	ch, tick := tickedWatch(t, ctx, s, watchOptions{})
	_, err = s.Delete(document.WithActor(ctx, "bo"), "ship", nil)
	require.NoError(t, err)
	_, err = s.Put(document.WithActor(ctx, "ana"), Update{Name: "ship", Content: ptrTo(watchBody)})
	require.NoError(t, err)
	tick <- time.Now()
	assert.Equal(t, []Change{
		{Name: "ship", Action: document.ActionDelete, Revision: 2, Title: "Ship", Status: "a", Actor: "bo"},
		{Name: "ship", Action: document.ActionWrite, Revision: 3, Created: true, Title: "Ship", Status: "draft", Author: "ana",
			Actor: "ana", Progress: document.Progress{Total: 2, Pending: 2}},
	}, changesUntilQuiet(ch))
}

// Where history no longer reaches back to the last revision delivered (or to the create of a
// plan the watcher never saw), one resync says so, and every revision history still keeps
// follows, in order, with its action and actor.
func TestWatchDeliversWhatHistoryKeepsAfterAResync(t *testing.T) {
	statuses := func(s *Store, ctx context.Context, list ...string) {
		t.Helper()
		for _, st := range list {
			_, err := s.SetStatus(document.WithActor(ctx, "bo"), "ship", st, nil)
			require.NoError(t, err)
		}
	}
	kept := func(got []Change) (revs []int64) {
		for _, c := range got[1:] {
			assert.Equal(t, document.ActionStatus, c.Action)
			assert.Equal(t, "bo", c.Actor)
			revs = append(revs, c.Revision)
		}
		return revs
	}
	for _, seen := range []bool{false, true} {
		name := map[bool]string{false: "a plan not seen before", true: "a plan that moved past history"}[seen]
		t.Run(name, func(t *testing.T) {
			s := mustStore(t, StoreConfig{Backend: memfs.New(), HistoryLimit: 3})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			create := func() {
				_, err := s.Put(ctx, Update{Name: "ship", Content: ptrTo(watchBody)})
				require.NoError(t, err)
			}
			if seen {
				create()
			}
			ch, tick := tickedWatch(t, ctx, s, watchOptions{})
			if !seen {
				create()
			}
			statuses(s, ctx, "a", "b", "c", "d")
			tick <- time.Now()
			got := changesUntilQuiet(ch)
			require.Len(t, got, 4)
			assert.Equal(t, Change{Action: document.ActionResync}, got[0])
			assert.Equal(t, []int64{3, 4, 5}, kept(got))
			assert.Equal(t, !seen, got[1].Created, "Created only when the watcher had not listed it")
			assert.Equal(t, "d", got[3].Status)
		})
	}
}

// A plan deleted past the revision a watcher last delivered is delivered as a resync (the
// revisions between went with its history), then its delete, naming who deleted it.
func TestWatchResyncsBeforeADeletePastTheLastRevisionSeen(t *testing.T) {
	s := storeOn(t, memfs.New(), "")
	ctx := putShip(t, s)
	ch, tick := tickedWatch(t, ctx, s, watchOptions{})
	_, err := s.SetStatus(ctx, "ship", "a", nil)
	require.NoError(t, err)
	_, err = s.Delete(document.WithActor(ctx, "bo"), "ship", nil)
	require.NoError(t, err)
	tick <- time.Now()
	assert.Equal(t, []Change{
		{Action: document.ActionResync},
		{Name: "ship", Action: document.ActionDelete, Revision: 1, Title: "Ship", Status: "draft", Actor: "bo"},
	}, changesUntilQuiet(ch))
}

// A watcher in another Store names who deleted a plan, as the deleting Store's OnChange does.
func TestWatchedDeleteNamesWhoDeleted(t *testing.T) {
	local := newLocal(t, t.TempDir())
	for name, backend := range map[string]driver.Backend{"memory": memfs.New(), "local": local} {
		t.Run(name, func(t *testing.T) {
			var heard Change
			s := mustStore(t, StoreConfig{Backend: backend, OnChange: func(_ context.Context, c Change) { heard = c }})
			watcher := storeOn(t, backend, "")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			body := "# P\n- [ ] a\n"
			_, err := s.Put(document.WithActor(ctx, "ana"), Update{Name: "p", Content: &body})
			require.NoError(t, err)
			ch, err := watcher.Watch(ctx, WatchOptions{Interval: 10 * time.Millisecond})
			require.NoError(t, err)
			_, err = s.Delete(document.WithActor(ctx, "bob"), "p", nil)
			require.NoError(t, err)
			require.Equal(t, "bob", heard.Actor)
			select {
			case c := <-ch:
				assert.Equal(t, Change{Name: "p", Action: document.ActionDelete, Revision: 1, Title: "P", Status: "draft",
					Author: "ana", Actor: "bob"}, c)
			case <-time.After(3 * time.Second):
				t.Fatal("the delete was not delivered")
			}
		})
	}
}
