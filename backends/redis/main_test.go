package redisbackend

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/backends/redis/redistest"
)

// The tests run against a real redis-server. $PLAN_REDIS_ADDR names one to use; otherwise
// TestMain starts redis-server from PATH on a free loopback port with a temporary directory
// and stops it at the end. Without a binary every test skips, except under CI=true, where a
// missing server is a failure rather than a silent pass.

// redisAddr is the address of the shared test server, or "" when there is none.
var redisAddr string

// noServer explains why redisAddr is empty.
var noServer string

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	if addr := os.Getenv("PLAN_REDIS_ADDR"); addr != "" {
		redisAddr = addr
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "plan-redis-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	srv, err := startServer(dir, false)
	if err != nil {
		noServer = err.Error()
		return backendtest.RunWithoutServer(m, "Redis server", err)
	}
	defer srv.Stop()
	redisAddr = srv.Addr()
	defer stopCluster()
	return m.Run()
}

// requireServer skips the test when no Redis server is available (never under CI=true,
// where TestMain has already failed).
func requireServer(t testing.TB) {
	t.Helper()
	if redisAddr == "" {
		t.Skipf("no Redis server: %s (install redis-server or set PLAN_REDIS_ADDR)", noServer)
	}
}

// startServer starts redis-server in dir. persistent turns on the append-only file with an
// fsync per write, so a restart on the same dir finds every acknowledged write.
func startServer(dir string, persistent bool, args ...string) (*redistest.Server, error) {
	if persistent {
		args = append([]string{"--appendonly", "yes", "--appendfsync", "always"}, args...)
	}
	return redistest.Start(dir, args...)
}

// newClient returns a client for addr that honours context deadlines, closed at test end.
func newClient(t testing.TB, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// newBackend returns a Backend on the shared server under a prefix of its own, so tests are
// independent of each other and of anything else on a server named by $PLAN_REDIS_ADDR.
// Its keys are removed when the test ends.
func newBackend(t testing.TB) (*Backend, *redis.Client) {
	t.Helper()
	requireServer(t)
	c := newClient(t, redisAddr)
	prefix := testPrefix(t)
	t.Cleanup(func() { dropPrefix(c, prefix) })
	return mustNew(t, c, WithPrefix(prefix)), c
}

// mustNew is New that fails the test on an error.
func mustNew(t testing.TB, c redis.UniversalClient, opts ...Option) *Backend {
	t.Helper()
	b, err := New(context.Background(), c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testPrefix(t testing.TB) string {
	return "plantest:" + t.Name() + ":" + rand.Text()[:8] + ":"
}

// dropPrefix deletes every key under prefix.
func dropPrefix(c redis.UniversalClient, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	iter := c.Scan(ctx, 0, escapeGlob(prefix)+"*", 500).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if len(keys) > 0 {
		c.Del(ctx, keys...)
	}
}

func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isConnErr reports whether err is a failure to reach Redis rather than an answer from it.
func isConnErr(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || strings.Contains(err.Error(), "connection refused") ||
		strings.Contains(err.Error(), "EOF")
}
