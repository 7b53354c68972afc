package redisbackend

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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
		if os.Getenv("CI") == "true" {
			fmt.Fprintf(os.Stderr, "FAIL: CI=true and no Redis server for the tests: %v\n", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "skipping Redis tests: %v\n", err)
		return m.Run()
	}
	defer srv.stop()
	redisAddr = srv.addr()
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

// redisServer is one redis-server process on a loopback port, restartable on the same port
// and directory.
type redisServer struct {
	bin, dir   string
	port       int
	persistent bool
	cmd        *exec.Cmd
	exited     chan struct{}
}

// startServer starts redis-server in dir. persistent turns on the append-only file with an
// fsync per write, so a restart on the same dir finds every acknowledged write.
func startServer(dir string, persistent bool) (*redisServer, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server not found on PATH (apt-get install -y redis-server)")
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s := &redisServer{bin: bin, dir: dir, port: port, persistent: persistent}
		if lastErr = s.start(); lastErr == nil {
			return s, nil
		}
	}
	return nil, lastErr
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

func (s *redisServer) start() error {
	args := []string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "",
		"--dir", s.dir, "--daemonize", "no", "--logfile", filepath.Join(s.dir, "redis.log"),
	}
	if s.persistent {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exited = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.exited) }()

	c := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			return fmt.Errorf("redis-server exited on start: %s", lastLines(string(log), 5))
		default:
		}
		if time.Now().After(deadline) {
			s.kill()
			return fmt.Errorf("redis-server on %s not ready: %w", s.addr(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill stops the server at once, as a crash or a pulled cable would, and waits for it.
func (s *redisServer) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	s.cmd = nil
}

// stop shuts the server down cleanly and waits for it.
func (s *redisServer) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Signal(syscall.SIGKILL)
		<-s.exited
	}
	s.cmd = nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
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
	return New(c, WithPrefix(prefix)), c
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
