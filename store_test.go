package plan_test

import (
	"context"
	"testing"

	"github.com/einoplan/plan/driver/drivertest"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

func TestMemoryBackendConformance(t *testing.T) {
	drivertest.RunBackendSuite(t, func(t *testing.T) plan.Backend { return plan.NewMemoryBackend() })
}

func TestListStaysSortedAcrossCachedListings(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	names := func() []string {
		l, err := s.List(ctx)
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
	require.NoError(t, backend.Delete(ctx, &plan.DeleteRequest{FilePath: "/plans/m.md"}))
	p, err := s.Get(ctx, "x")
	require.NoError(t, err)
	p.Status = "t"
	require.NoError(t, backend.Write(ctx, &plan.WriteRequest{FilePath: "/plans/x.md", Content: plan.EncodePlan(p)}))
	require.Equal(t, []string{"a:new", "c:s", "x:t"}, names())
	require.Equal(t, []string{"a:new", "c:s", "x:t"}, names())
}
