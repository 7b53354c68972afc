package redisbackend

import (
	"context"
	"fmt"
	"testing"

	"github.com/einoplan/plan/backends/backendtest"

	"github.com/einoplan/plan"
)

// TestClusterConformance runs the Store conformance suite on a 3-master Cluster.
func TestClusterConformance(t *testing.T) {
	backendtest.RunBackendSuite(t, func(t *testing.T) plan.Backend {
		b, _ := newClusterBackend(t)
		return b
	})
}

// TestClusterDefaultPrefix: on a Cluster with the default prefix, writes used to fail with
// CROSSSLOT while list_plans answered an empty list. Now 6 writers on clients of their own
// create plans in 4 folders, every write succeeds, every plan is listed, and the folders
// spread over more than one master.
func TestClusterDefaultPrefix(t *testing.T) {
	cc := newClusterClient(t, nil)
	ctx := context.Background()
	t.Cleanup(func() { dropClusterPrefix(cc, DefaultPrefix) })
	folders := []string{"/plans", "/team-a/plans", "/team-b/plans", "/ops"}
	const writers, each = 6, 10
	backends := make([]*Backend, writers)
	for w := range backends {
		backends[w] = mustNew(t, newClusterClient(t, nil))
	}
	for _, err := range backendtest.InParallel(writers, func(w int) error {
		for i := range each {
			dir := folders[(w+i)%len(folders)]
			s, err := plan.NewStore(&plan.StoreConfig{Backend: backends[w], BaseDir: dir})
			if err != nil {
				return err
			}
			if _, err := s.Put(ctx, plan.Update{Name: fmt.Sprintf("w%d-%d", w, i), Content: ptr("- [ ] step"), IfRevision: ptr(int64(0))}); err != nil {
				return err
			}
		}
		return nil
	}) {
		t.Fatal(err)
	}
	b := mustNew(t, cc)
	total := 0
	masters := map[string]bool{}
	for _, dir := range folders {
		s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		l, err := s.ListPage(ctx, plan.ListOptions{})
		if err != nil || len(l.Warnings) != 0 {
			t.Fatalf("List(%s) = %+v, %v", dir, l, err)
		}
		total += len(l.Plans)
		m, err := cc.MasterForKey(ctx, b.dirKey(dir))
		if err != nil {
			t.Fatal(err)
		}
		masters[m.Options().Addr] = true
	}
	if total != writers*each {
		t.Fatalf("%d plans listed, want %d", total, writers*each)
	}
	if len(masters) < 2 {
		t.Fatalf("4 folders all on one master %v: folders do not spread over the slots", masters)
	}
	backendtest.WantLs(t, b, "/", "/ops/", "/plans/", "/team-a/", "/team-b/")
	backendtest.WantLs(t, b, "/team-a", "/team-a/plans/")
}

// TestClusterGuardedIncrements: 6 writers, each with a Cluster client and Backend of its
// own as separate machines, make 25 guarded increments each of one plan: the final
// revision and counter account for every one of them, so none was lost or applied twice.
// It runs with the per-folder hash tags of any prefix, and with a prefix that carries a
// tag of its own ("{plan}:"), which puts everything on one slot.
func TestClusterGuardedIncrements(t *testing.T) {
	for _, tagged := range []bool{false, true} {
		t.Run(fmt.Sprintf("own_tag=%v", tagged), func(t *testing.T) {
			cc := newClusterClient(t, nil)
			prefix := testPrefix(t)
			if tagged {
				prefix = "{plan}:" + prefix
			}
			t.Cleanup(func() { dropClusterPrefix(cc, prefix) })
			clusterIncrements(t, prefix)
		})
	}
}

func clusterIncrements(t *testing.T, prefix string) {
	ctx := context.Background()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: mustNew(t, newClusterClient(t, nil), WithPrefix(prefix))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, plan.Update{Name: "counter", Content: ptr("0")}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 6, 25
	stores := make([]*plan.Store, writers)
	for w := range stores {
		ws, err := plan.NewStore(&plan.StoreConfig{Backend: mustNew(t, newClusterClient(t, nil), WithPrefix(prefix))})
		if err != nil {
			t.Fatal(err)
		}
		stores[w] = ws
	}
	for _, err := range backendtest.InParallel(writers, func(w int) error { return backendtest.GuardedIncrements(ctx, stores[w], "counter", each) }) {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "counter")
	if err != nil || got.Revision != 1+writers*each || got.Content != fmt.Sprint(writers*each) {
		t.Fatalf("after %d increments: %+v, %v", writers*each, got, err)
	}
}
