package redisbackend

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/einoplan/plan/api"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/redis/redistest"
)

// ackedWrite is one guarded write a writer was told succeeded.
type ackedWrite struct {
	revision int64
	line     string
}

// ledgerWriters runs writers until stop is closed, each on a Cluster client and Backend of
// its own, calling begin once every writer is connected and before any writes. Every attempt appends a line of its own to plan name, guarded by the revision
// it read; a failed attempt (conflict, outage, unknown outcome) is simply followed by a
// new one with a new line. It returns every write that was acknowledged.
func ledgerWriters(t *testing.T, prefix, name string, writers int, begin func(), stop <-chan struct{}, opts ...Option) []ackedWrite {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var acked []ackedWrite
	var wg sync.WaitGroup
	stores := make([]*plan.Store, writers)
	for w := range writers {
		cc := newClusterClient(t, &redis.ClusterOptions{ContextTimeoutEnabled: true,
			ReadTimeout: time.Second, WriteTimeout: time.Second, DialTimeout: 300 * time.Millisecond})
		s, err := plan.NewStore(&plan.StoreConfig{Backend: mustNew(t, cc, append([]Option{WithPrefix(prefix)}, opts...)...)})
		if err != nil {
			t.Fatal(err)
		}
		stores[w] = s
	}
	begin() // every writer is connected: the disruption may start
	for w, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for attempt := 0; ; attempt++ {
				select {
				case <-stop:
					return
				default:
				}
				cur, err := s.Get(ctx, name)
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				line := fmt.Sprintf("w%d-%d", w, attempt)
				next, err := s.Put(ctx, plan.Update{Name: name, Content: ptr(cur.Content + line + "\n"), IfRevision: ptr(cur.Revision)})
				switch {
				case err == nil:
					mu.Lock()
					acked = append(acked, ackedWrite{next.Revision, line})
					mu.Unlock()
				case plan.CodeOf(err) == plan.CodeRevisionConflict:
				default:
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	return acked
}

// checkLedger fails the test if an acknowledged write is missing from the plan or two
// acknowledged writes got the same revision.
func checkLedger(t *testing.T, s *plan.Store, name string, acked []ackedWrite) {
	t.Helper()
	final, err := s.Get(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	present := map[string]bool{}
	for _, l := range strings.Split(final.Content, "\n") {
		present[l] = true
	}
	revs := map[int64]string{}
	var lost, reissued []string
	for _, a := range acked {
		if !present[a.line] {
			lost = append(lost, fmt.Sprintf("%s@%d", a.line, a.revision))
		}
		if other, dup := revs[a.revision]; dup {
			reissued = append(reissued, fmt.Sprintf("%d (%s and %s)", a.revision, other, a.line))
		}
		revs[a.revision] = a.line
	}
	t.Logf("%d acknowledged writes, final revision %d", len(acked), final.Revision)
	if len(acked) < 20 {
		t.Fatalf("only %d writes acknowledged: the test did not exercise the Cluster", len(acked))
	}
	if len(lost) > 0 || len(reissued) > 0 {
		t.Fatalf("%d acknowledged writes lost %q; revisions issued twice: %q", len(lost), lost, reissued)
	}
}

// failoverRun writes the ledger from 4 writers with WithReplicaAcks(1) while disrupt
// fails over the master that holds it, then checks that no acknowledged write was lost.
func failoverRun(t *testing.T, disrupt func(ctx context.Context, c *redistest.Cluster, master *redistest.Server, key string)) {
	b, cc := newClusterBackend(t)
	c := sharedCluster(t)
	ctx := context.Background()
	const name = "ledger"
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, plan.Update{Name: name, Content: ptr("# ledger\n")}); err != nil {
		t.Fatal(err)
	}
	key := b.contentKey(api.DefaultBaseDir + "/" + name + ".md")
	master, err := c.MasterFor(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	begin := func() {
		go func() {
			time.Sleep(700 * time.Millisecond)
			disrupt(ctx, c, master, key)
			wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			if err := c.WaitHealthy(wctx); err != nil {
				t.Error(err)
			}
			time.Sleep(700 * time.Millisecond)
			close(stop)
		}()
	}
	acked := ledgerWriters(t, b.prefix, name, 4, begin, stop, WithReplicaAcks(1, 500*time.Millisecond))
	cc.ReloadState(ctx)
	checkLedger(t, s, name, acked)
}

// TestClusterFailoverTakeoverLosesNothing: CLUSTER FAILOVER TAKEOVER on the replica of the
// master holding a plan, during guarded writes, used to lose acknowledged updates and issue
// their revisions again. With WithReplicaAcks every acknowledged write survives.
func TestClusterFailoverTakeoverLosesNothing(t *testing.T) {
	failoverRun(t, func(ctx context.Context, c *redistest.Cluster, master *redistest.Server, key string) {
		replica, err := c.ReplicaOf(ctx, master)
		if err != nil {
			t.Error(err)
			return
		}
		if _, err := c.Do(ctx, replica, "CLUSTER", "FAILOVER", "TAKEOVER"); err != nil {
			t.Error(err)
		}
	})
}

// TestClusterMasterKilledLosesNothing kills the master holding a plan with SIGKILL during
// guarded writes; its replica takes over, and with WithReplicaAcks every acknowledged write
// survives. The killed node is restarted and rejoins as a replica.
func TestClusterMasterKilledLosesNothing(t *testing.T) {
	failoverRun(t, func(ctx context.Context, c *redistest.Cluster, master *redistest.Server, key string) {
		master.Kill()
		// Wait for the replica to take over before bringing the old master back.
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			if m, err := c.MasterFor(ctx, key); err == nil && m != master {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err := master.Restart(); err != nil {
			t.Error(err)
		}
	})
}
