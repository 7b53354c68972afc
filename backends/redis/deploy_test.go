package redisbackend

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
)

func wantRefusal(t *testing.T, err error, mentions ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("New accepted a deployment it cannot keep its guarantees on")
	}
	for _, m := range mentions {
		if !strings.Contains(err.Error(), m) {
			t.Fatalf("New's refusal %q does not mention %q", err, m)
		}
	}
}

// TestNewRefusesRing: a Ring used to be accepted, and its shards split the folder index:
// of 50 plans created without error, list_plans showed 26. New now refuses it and says
// what to use instead.
func TestNewRefusesRing(t *testing.T) {
	requireServer(t)
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": redisAddr, "b": redisAddr}})
	defer ring.Close()
	_, err := New(bg, ring)
	wantRefusal(t, err, "Ring", "redis.NewClusterClient")
	_, err = New(bg, ring, WithReplicaAcks(1, 100))
	wantRefusal(t, err, "Ring")
}

// TestNewRefusesClusterMisuse: a single-node client on a Cluster node, a Cluster client
// that reads from replicas, and a prefix whose empty hash tag would split a folder over
// slots are refused; a prefix with a tag of its own is accepted.
func TestNewRefusesClusterMisuse(t *testing.T) {
	c := sharedCluster(t)
	single := newClient(t, c.Nodes[0].Addr())
	_, err := New(bg, single)
	wantRefusal(t, err, "redis.NewClusterClient")

	for _, opts := range []*redis.ClusterOptions{{ReadOnly: true}, {RouteByLatency: true}, {RouteRandomly: true}} {
		_, err := New(bg, newClusterClient(t, opts))
		wantRefusal(t, err, "replicas")
	}
	cc := newClusterClient(t, nil)
	for _, p := range []string{"{}plan:", "a{}b"} {
		_, err := New(bg, cc, WithPrefix(p))
		wantRefusal(t, err, "empty hash tag")
	}
	for _, p := range []string{"{plan}:", "x}{", "plan{"} {
		b := mustNew(t, cc, WithPrefix(p+testPrefix(t)))
		t.Cleanup(func() { dropClusterPrefix(cc, b.prefix) })
		s, err := plan.NewStore(&plan.StoreConfig{Backend: b})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(bg, plan.Update{Name: "a", Content: ptr("- [ ] x")}); err != nil {
			t.Fatalf("prefix %q: %v", p, err)
		}
	}
}

// TestEvictionIsRefusedOrReported: on a server with maxmemory 3mb and allkeys-lru, 400
// writes were acknowledged, then list_plans showed 72 plans with no warning while 90 were
// readable, and a plan whose bytes were evicted was re-created from revision 1 by a
// create-only write. Now New refuses the server unless told to accept the risk. With the
// risk accepted, every plan its folder's index names is listed or warned about, never
// skipped; a warned plan reads as ErrContentMissing, and a create-only write of its name
// is refused. (A folder index evicted whole takes its entries with it: that is the risk
// the option names.)
func TestEvictionIsRefusedOrReported(t *testing.T) {
	srv := ownServer(t, false, "--maxmemory", "3mb", "--maxmemory-policy", "allkeys-lru")
	c := newClient(t, srv.Addr())
	_, err := New(bg, c)
	wantRefusal(t, err, "allkeys-lru", "noeviction", "AcceptPlanLossOnEviction")

	b := mustNew(t, c, AcceptPlanLossOnEviction())
	// No history: its entries would fill the memory too, and evict plans mid-check.
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, HistoryLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	const plans = 100
	body := strings.Repeat("- [ ] a step of a long plan that fills the server's memory\n", 600)
	acked := map[string]int64{}
	for round := 1; round <= 12; round++ {
		for i := range plans {
			name := fmt.Sprintf("p%03d", i)
			p, err := s.Put(bg, plan.Update{Name: name, Content: ptr(fmt.Sprintf("%d\n%s", round, body))})
			switch {
			case err == nil:
				acked[name] = p.Revision
			case !errors.Is(err, ErrContentMissing):
				t.Fatalf("write %d of %s: %v; want success, or backend_error once its bytes are evicted", round, name, err)
			}
		}
		if round < 4 {
			continue
		}
		if checkEvicted(t, b, c, acked) > 0 {
			return
		}
	}
	t.Fatal("no plan lost its bytes while its index entry stayed: the test did not exercise eviction")
}

// checkEvicted checks a fresh Store's view of the evicted server and returns how many
// indexed plans lost their bytes.
func checkEvicted(t *testing.T, b *Backend, c *redis.Client, acked map[string]int64) int {
	t.Helper()
	fresh, err := plan.NewStore(&plan.StoreConfig{Backend: mustNew(t, c, AcceptPlanLossOnEviction()), HistoryLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	listing, err := fresh.ListPage(bg, plan.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	indexed, err := c.HKeys(bg, b.dirKey("/plans")).Result()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range listing.Plans {
		seen[p.Name] = true
		got, err := fresh.Get(bg, p.Name)
		if errors.Is(err, ErrContentMissing) {
			continue // evicted since it was listed: reads on a full server evict too
		}
		if err != nil || got.Revision != acked[p.Name] {
			t.Fatalf("listed plan %s reads as %+v, %v; want its last acknowledged revision %d", p.Name, got, err, acked[p.Name])
		}
	}
	for _, w := range listing.Warnings {
		seen[w.Name] = true
		if w.Code != plan.CodeBackendError {
			t.Errorf("warning %+v, want backend_error", w)
		}
		if _, err := fresh.Get(bg, w.Name); !errors.Is(err, ErrContentMissing) {
			t.Fatalf("evicted plan %s reads as %v; want ErrContentMissing", w.Name, err)
		}
		if p, err := fresh.Put(bg, plan.Update{Name: w.Name, Content: ptr("- [ ] again"), IfRevision: ptr(int64(0))}); err == nil {
			t.Fatalf("create-only write of evicted plan %s succeeded at revision %d", w.Name, p.Revision)
		}
		ok, err := b.CompareAndSwap(bg, &driver.WriteRequest{FilePath: "/plans/" + w.Name + ".md", Content: "x"}, nil)
		if ok || err != nil {
			t.Fatalf("backend create-only write of evicted %s = %v, %v; want (false, nil)", w.Name, ok, err)
		}
	}
	for _, f := range indexed {
		if name, ok := strings.CutSuffix(f, ".md"); ok && !seen[name] {
			t.Fatalf("plan %s is in the folder index but neither listed nor warned about", name)
		}
	}
	t.Logf("%d indexed, %d listed, %d warnings", len(indexed), len(listing.Plans), len(listing.Warnings))
	return len(listing.Warnings)
}
