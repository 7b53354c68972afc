package redisbackend

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/backends/redis/redistest"
)

// The Cluster tests share one Redis Cluster of 3 masters, each with one replica, on
// loopback ports, started by the first test that needs it and stopped by TestMain. Tests
// that fail a node over or kill it leave the Cluster healthy again before they return.

var (
	clusterOnce sync.Once
	cluster     *redistest.Cluster
	clusterDir  string
	clusterErr  error
)

// sharedCluster returns the shared Cluster, starting it on first use. Without redis-server
// and redis-cli the test skips, or fails under CI=true.
func sharedCluster(t testing.TB) *redistest.Cluster {
	t.Helper()
	clusterOnce.Do(func() {
		clusterDir, clusterErr = os.MkdirTemp("", "plan-redis-cluster-")
		if clusterErr != nil {
			return
		}
		cluster, clusterErr = redistest.StartCluster(clusterDir, 3, 1)
	})
	backendtest.SkipWithoutServer(t, "Redis Cluster", clusterErr)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cluster.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	return cluster
}

func stopCluster() {
	if cluster != nil {
		cluster.Stop()
	}
	if clusterDir != "" {
		os.RemoveAll(clusterDir)
	}
}

// newClusterClient returns a Cluster client on the shared Cluster, closed at test end.
func newClusterClient(t testing.TB, opts *redis.ClusterOptions) *redis.ClusterClient {
	t.Helper()
	c := sharedCluster(t)
	o := redis.ClusterOptions{ContextTimeoutEnabled: true}
	if opts != nil {
		o = *opts
	}
	o.Addrs = c.Addrs()
	cc := redis.NewClusterClient(&o)
	t.Cleanup(func() { cc.Close() })
	return cc
}

// newClusterBackend returns a Backend on the shared Cluster under a fresh prefix, whose
// keys are removed at test end.
func newClusterBackend(t testing.TB, opts ...Option) (*Backend, *redis.ClusterClient) {
	t.Helper()
	cc := newClusterClient(t, nil)
	prefix := testPrefix(t)
	t.Cleanup(func() { dropClusterPrefix(cc, prefix) })
	return mustNew(t, cc, append([]Option{WithPrefix(prefix)}, opts...)...), cc
}

// dropClusterPrefix deletes every key under prefix on every master.
func dropClusterPrefix(cc *redis.ClusterClient, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		dropPrefix(m, prefix)
		return nil
	})
}
