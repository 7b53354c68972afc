package plan_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// List returns plans sorted by name with their current status, whether served from its cache
// or after changes made through another Store or behind the Store's back.
func TestListStaysSortedAcrossCachedListings(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	names := func() []string {
		l, err := s.ListPage(ctx, plan.ListOptions{})
		require.NoError(t, err)
		var out []string
		for _, p := range l.Plans {
			out = append(out, p.Name+":"+p.Status)
		}
		return out
	}
	for _, n := range []string{"m", "c", "x"} {
		body := "body"
		_, err := s.Put(ctx, plan.Update{Name: n, Content: &body, Status: "s"})
		require.NoError(t, err)
	}
	require.Equal(t, []string{"c:s", "m:s", "x:s"}, names())
	require.Equal(t, []string{"c:s", "m:s", "x:s"}, names(), "served from the cache")

	other, err := plan.NewStore(&plan.StoreConfig{Backend: backend, BaseDir: "/plans"})
	require.NoError(t, err)
	body := "b"
	_, err = other.Put(ctx, plan.Update{Name: "a", Content: &body, Status: "new"})
	require.NoError(t, err)
	require.Equal(t, []string{"a:new", "c:s", "m:s", "x:s"}, names())
	// Behind the Store's back: a deletion and a rewrite.
	require.NoError(t, backend.Delete(ctx, &driver.DeleteRequest{FilePath: "/plans/m.md"}))
	p, err := s.Get(ctx, "x")
	require.NoError(t, err)
	p.Status = "t"
	require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/x.md", Content: document.EncodePlan(p)}))
	require.Equal(t, []string{"a:new", "c:s", "x:t"}, names())
	require.Equal(t, []string{"a:new", "c:s", "x:t"}, names())
}

// Every change a tool makes is reported to the host's OnChange, and the run's events carry the
// same changes; a refused call reports nothing.
func TestChangesReportedToHostAndAsEvents(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var hostChanges []plan.Change
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), OnChange: func(_ context.Context, c plan.Change) {
		mu.Lock()
		hostChanges = append(hostChanges, c)
		mu.Unlock()
	}})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"p","content":"- [ ] a\n- [ ] b\n"}`),
		plantest.CallTool("write_plan", `{"name":"p","content":"x","last_known_revision":9}`),
		plantest.CallTool("set_plan_status", `{"name":"p","status":"active"}`),
		plantest.CallTool("update_plan_step", `{"name":"p","step":1,"status":"completed"}`),
		plantest.CallTool("update_plan_step", `{"name":"p","step":1,"status":"failed"}`),
		plantest.CallTool("delete_plan", `{"name":"p"}`),
	)
	events := runAgent(t, m, mw)
	var eventChanges []plan.Change
	for _, ev := range events {
		if ev.Output != nil {
			if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok {
				eventChanges = append(eventChanges, c)
			}
		}
	}
	want := []struct {
		action   plan.Action
		revision int64
	}{{plan.ActionWrite, 1}, {plan.ActionStatus, 2}, {plan.ActionStep, 3}, {plan.ActionDelete, 3}}
	require.Len(t, hostChanges, len(want), "one change per successful mutation, none for failed ones")
	require.Equal(t, hostChanges, eventChanges, "the run's events carry the same changes")
	for i, w := range want {
		assert.Equal(t, "p", hostChanges[i].Name)
		assert.Equal(t, w.action, hostChanges[i].Action)
		assert.Equal(t, w.revision, hostChanges[i].Revision)
	}
	assert.True(t, hostChanges[0].Created)
	assert.Equal(t, 2, hostChanges[0].Progress.Total)
	assert.Equal(t, 1, hostChanges[2].Progress.Completed)
}

// A call whose context has ended answers canceled as a result, writes nothing and reports no
// change.
func TestCanceledContextWritesNothing(t *testing.T) {
	backend := plan.NewMemoryBackend()
	changes := 0
	mw, err := plan.New(context.Background(), &plan.Config{Backend: backend, OnChange: func(context.Context, plan.Change) { changes++ }})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	cancel()
	out, err := tools["write_plan"].InvokableRun(ctx, `{"name":"c","content":"x"}`)
	require.NoError(t, err, "a canceled call is a result, not a Go error")
	assert.Equal(t, "canceled", errorCode(t, out))
	assert.Zero(t, changes)
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = store.Get(context.Background(), "c")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
}

func seedPlans(t *testing.T, backend plan.Backend, n int) {
	t.Helper()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	for i := 0; i < n; i++ {
		body := fmt.Sprintf("# Plan number %d with a fairly long title to fill the digest\n- [x] first\n- [ ] second step of plan %d\n", i, i)
		_, err := store.Put(context.Background(), plan.Update{Name: fmt.Sprintf("plan-%02d", i), Content: &body, Status: "active"})
		require.NoError(t, err)
	}
}

// TestListFollowsEveryChangeInNameOrder lists through one Store while another creates,
// rewrites and deletes plans at random, names where one is another followed by '-'
// included: after each change the listing is what the plan files hold, read without any
// Store, in name order, on a backend that lists in no order (MemoryBackend) and one that
// lists in path order.
func TestListFollowsEveryChangeInNameOrder(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"memory", "local"} {
		t.Run(kind, func(t *testing.T) {
			var backend plan.Backend = plan.NewMemoryBackend()
			if kind == "local" {
				b, err := plan.NewLocalBackend(t.TempDir())
				require.NoError(t, err)
				backend = b
			}
			lister, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HistoryLimit: -1})
			require.NoError(t, err)
			writer, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HistoryLimit: -1})
			require.NoError(t, err)
			names := []string{"a", "a-b", "a-b-c", "a0", "a_b", "ab", "b", "b-a", "c-1", "c"}
			rng := rand.New(rand.NewPCG(7, 8))
			for round := 0; round < 150; round++ {
				name := names[rng.IntN(len(names))]
				if rng.IntN(4) == 0 {
					_, _ = writer.Delete(ctx, name, nil)
				} else {
					body := fmt.Sprintf("- [ ] step %d", round)
					_, err := writer.Put(ctx, plan.Update{Name: name, Content: &body, Status: fmt.Sprint(round)})
					require.NoError(t, err)
				}
				want := planFiles(t, backend)
				got, err := lister.ListPage(ctx, plan.ListOptions{})
				require.NoError(t, err)
				require.Equal(t, want, listed(got), "round %d", round)
				if rng.IntN(2) == 0 { // unchanged since: the listing's order is reused
					got, err = lister.ListPage(ctx, plan.ListOptions{})
					require.NoError(t, err)
					require.Equal(t, want, listed(got), "round %d, listed again", round)
				}
			}
		})
	}
}

// planFiles is each plan file's name, revision and status as listed, in name order,
// read from the backend without a Store.
func planFiles(t *testing.T, backend plan.Backend) []string {
	t.Helper()
	ctx := context.Background()
	infos, err := backend.LsInfo(ctx, &driver.LsInfoRequest{Path: api.DefaultBaseDir})
	require.NoError(t, err)
	var out []string
	for _, info := range infos {
		name, ok := strings.CutSuffix(path.Base(info.Path), ".md")
		if info.IsDir || !ok {
			continue
		}
		raw, err := backend.Read(ctx, &driver.ReadRequest{FilePath: info.Path})
		require.NoError(t, err)
		p, err := document.DecodePlan(name, raw.Content)
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("%s r%d %s", p.Name, p.Revision, p.Status))
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.Fields(a)[0], strings.Fields(b)[0]) })
	return out
}

// listed is each listed plan's name, revision and status.
func listed(l *plan.Listing) []string {
	out := make([]string, len(l.Plans))
	for i, p := range l.Plans {
		out[i] = fmt.Sprintf("%s r%d %s", p.Name, p.Revision, p.Status)
	}
	return out
}

// TestASlowListingLeavesNoStaleListingBehind runs a listing that is held while re-reading
// a plan, and meanwhile another agent changes and adds plans and two listings see it, the
// second vouched for by the folder stamp. When the slow listing ends, its older view must
// neither be served under that stamp nor make later listings drop the added plan.
func TestASlowListingLeavesNoStaleListingBehind(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	held := &heldRead{MemoryBackend: mem, path: api.DefaultBaseDir + "/x.md", entered: make(chan struct{}), release: make(chan struct{})}
	writer, err := plan.NewStore(&plan.StoreConfig{Backend: mem, HistoryLimit: -1})
	require.NoError(t, err)
	lister, err := plan.NewStore(&plan.StoreConfig{Backend: held, HistoryLimit: -1})
	require.NoError(t, err)
	put := func(name, status string) {
		t.Helper()
		body := "- [ ] step"
		_, err := writer.Put(ctx, plan.Update{Name: name, Content: &body, Status: status})
		require.NoError(t, err)
	}
	list := func() []string {
		t.Helper()
		l, err := lister.ListPage(ctx, plan.ListOptions{})
		require.NoError(t, err)
		return listed(l)
	}
	put("a", "old")
	put("x", "old")
	list()
	list()
	put("x", "changed") // the next listing re-reads x
	held.armed.Store(true)
	slow := make(chan []string)
	go func() {
		l, err := lister.ListPage(ctx, plan.ListOptions{})
		assert.NoError(t, err)
		slow <- listed(l)
	}()
	<-held.entered
	put("a", "new")
	put("n", "added")
	want := planFiles(t, mem)
	require.Equal(t, want, list(), "a listing that re-reads a and n")
	require.Equal(t, want, list(), "a listing from the cache, which the stamp vouches for")
	close(held.release)
	assert.Equal(t, []string{"a r1 old", "x r2 changed"}, <-slow, "the slow listing saw the folder as it was")
	assert.Equal(t, want, list(), "after the slow listing ended")
	assert.Equal(t, want, list(), "and once more")
}

// heldRead holds the first bounded read of path once armed until release is closed.
type heldRead struct {
	*plan.MemoryBackend
	path             string
	armed            atomic.Bool
	entered, release chan struct{}
}

func (h *heldRead) ReadAtMost(ctx context.Context, p string, max int64) (string, error) {
	if p == h.path && h.armed.CompareAndSwap(true, false) {
		close(h.entered)
		<-h.release
	}
	return h.MemoryBackend.ReadAtMost(ctx, p, max)
}

func (h *heldRead) Unwrap() plan.Backend { return h.MemoryBackend }
