package main

import (
	"os"
	"sync"
	"testing"

	"github.com/einoplan/plan/backends/redis/redistest"
)

// The Redis benchmarks start one redis-server and one 3-master Cluster on loopback ports on
// first use; TestMain stops them by PID when the run ends.

var (
	redisOnce    sync.Once
	redisServer  *redistest.Server
	redisCluster *redistest.Cluster
	redisDir     string
	redisErr     error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if redisServer != nil {
		redisServer.Stop()
	}
	if redisCluster != nil {
		redisCluster.Stop()
	}
	if redisDir != "" {
		os.RemoveAll(redisDir)
	}
	os.Exit(code)
}

// redisDeployments starts the server and the Cluster once, or skips the benchmark when
// redis-server is not installed (fails under CI=true).
func redisDeployments(tb testing.TB) (*redistest.Server, *redistest.Cluster) {
	tb.Helper()
	redisOnce.Do(func() {
		if redisDir, redisErr = os.MkdirTemp("", "plan-bench-redis-"); redisErr != nil {
			return
		}
		if redisServer, redisErr = redistest.Start(redisDir); redisErr != nil {
			return
		}
		redisCluster, redisErr = redistest.StartCluster(redisDir, 3, 0)
	})
	if redisErr != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true and no Redis: %v", redisErr)
		}
		tb.Skipf("no Redis: %v", redisErr)
	}
	return redisServer, redisCluster
}
