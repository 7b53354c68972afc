package redisbackend

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/driver"

	"github.com/einoplan/plan/backends/backendtest"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
)

// TestConformance runs the Store conformance suite every Backend must pass, unchanged.
func TestConformance(t *testing.T) {
	requireServer(t)
	backendtest.RunBackendSuite(t, func(t *testing.T) plan.Backend {
		b, _ := newBackend(t)
		return b
	})
}

func ptr[T any](v T) *T { return &v }

// machine returns a Store with a Redis connection and Backend value of its own on the
// shared server, as another host would have: nothing in this process serializes it with
// the other machines, only Redis does.
func machine(t *testing.T, prefix string, opts *redis.Options) *plan.Store {
	t.Helper()
	o := redis.Options{Addr: redisAddr, ContextTimeoutEnabled: true}
	if opts != nil {
		o = *opts
		o.Addr = redisAddr
	}
	c := redis.NewClient(&o)
	t.Cleanup(func() { c.Close() })
	s, err := plan.NewStore(&plan.StoreConfig{Backend: mustNew(t, c, WithPrefix(prefix)), HistoryLimit: api.DefaultHistoryLimit})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStaleWriterGetsRevisionConflict: a writer reads, stalls past every client timeout,
// another writer updates meanwhile, and the stale write is refused.
func TestStaleWriterGetsRevisionConflict(t *testing.T) {
	requireServer(t)
	b, _ := newBackend(t)
	short := &redis.Options{ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond,
		ConnMaxIdleTime: 500 * time.Millisecond, ContextTimeoutEnabled: true}
	stale, fresh := machine(t, b.prefix, short), machine(t, b.prefix, nil)
	ctx := context.Background()
	if _, err := fresh.Put(ctx, plan.Update{Name: "release", Content: ptr("- [ ] ship")}); err != nil {
		t.Fatal(err)
	}

	seen, err := stale.Get(ctx, "release")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if _, err := fresh.Put(ctx, plan.Update{Name: "release", Content: ptr("- [x] ship"), IfRevision: ptr(seen.Revision)}); err != nil {
		t.Fatal(err)
	}
	_, err = stale.Put(ctx, plan.Update{Name: "release", Content: ptr("- [ ] ship\n- [ ] stale"), IfRevision: ptr(seen.Revision)})
	if plan.CodeOf(err) != plan.CodeRevisionConflict {
		t.Fatalf("stale write = %v, want revision_conflict", err)
	}
	var pe *plan.Error
	if perr, ok := err.(*plan.Error); ok {
		pe = perr
	}
	if pe == nil || pe.CurrentRevision != seen.Revision+1 {
		t.Fatalf("stale write error %#v, want CurrentRevision %d", err, seen.Revision+1)
	}
	got, err := fresh.Get(ctx, "release")
	if err != nil || got.Revision != seen.Revision+1 || got.Content != "- [x] ship" {
		t.Fatalf("after the stale write: %+v, %v; want the other writer's revision %d intact", got, err, seen.Revision+1)
	}
}

// stallingBackend pauses before its first compare-and-swap (plain or keeping), after the
// Store has read the plan and checked the revision: the moment where a writer holding an
// expiring lock or lease would be overtaken without knowing it.
type stallingBackend struct {
	*Backend
	stall   time.Duration
	stalled chan struct{}
	once    atomic.Bool
}

func (s *stallingBackend) CompareAndSwap(ctx context.Context, req *driver.WriteRequest, old *string) (bool, error) {
	s.stallOnce()
	return s.Backend.CompareAndSwap(ctx, req, old)
}

// CompareAndSwapKeeping stalls too: the Store takes it from the value whose CompareAndSwap
// it calls, so without it the embedded Backend's would run unstalled.
func (s *stallingBackend) CompareAndSwapKeeping(ctx context.Context, req *driver.WriteRequest, old *string, keep string) (bool, error) {
	s.stallOnce()
	return s.Backend.CompareAndSwapKeeping(ctx, req, old, keep)
}

func (s *stallingBackend) KeepsFor(v any) bool { return v == any(s) }

func (s *stallingBackend) stallOnce() {
	if s.once.CompareAndSwap(false, true) {
		close(s.stalled)
		time.Sleep(s.stall)
	}
}

// TestWriterStalledInsideTheCheckLoses stalls a guarded write between its revision check and
// its write for 2 s while another machine updates the plan. The stalled write must not land:
// it comes back as revision_conflict and the other update is intact.
func TestWriterStalledInsideTheCheckLoses(t *testing.T) {
	requireServer(t)
	b, _ := newBackend(t)
	fresh := machine(t, b.prefix, nil)
	ctx := context.Background()
	if _, err := fresh.Put(ctx, plan.Update{Name: "release", Content: ptr("v1")}); err != nil {
		t.Fatal(err)
	}
	sb := &stallingBackend{Backend: mustNew(t, newClient(t, redisAddr), WithPrefix(b.prefix)), stall: 2 * time.Second, stalled: make(chan struct{})}
	stale, err := plan.NewStore(&plan.StoreConfig{Backend: sb})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := stale.Put(ctx, plan.Update{Name: "release", Content: ptr("stale"), IfRevision: ptr(int64(1))})
		done <- err
	}()
	<-sb.stalled
	if _, err := fresh.Put(ctx, plan.Update{Name: "release", Content: ptr("v2"), IfRevision: ptr(int64(1))}); err != nil {
		t.Fatalf("the other writer, while the first is stalled: %v", err)
	}
	if err := <-done; plan.CodeOf(err) != plan.CodeRevisionConflict {
		t.Fatalf("stalled write = %v, want revision_conflict", err)
	}
	got, err := fresh.Get(ctx, "release")
	if err != nil || got.Revision != 2 || got.Content != "v2" {
		t.Fatalf("plan = %+v, %v; want revision 2 \"v2\"", got, err)
	}
}
