//go:build unix

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// The tests that run planctl as people do build it once, start a redis-server once when a
// test needs one, and remove or stop both at the end.

var (
	tmpRoot string

	buildOnce sync.Once
	binPath   string
	buildErr  error

	redisOnce sync.Once
	redisSrv  *exec.Cmd
	redisAddr string
	redisErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "planctl-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmpRoot = dir
	code := m.Run()
	stopRedis()
	os.RemoveAll(dir)
	os.Exit(code)
}

// planctlBinary returns the path of planctl built from this package.
func planctlBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binPath = filepath.Join(tmpRoot, "bin", "planctl")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// requireTool skips the test when name is not installed, except under CI=true, where that
// is a failure rather than a silent pass.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %s is not installed", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// redisURL returns the URL of a redis-server started for the tests on a free loopback
// port, or skips the test when redis-server is not installed.
func redisURL(t *testing.T) string {
	t.Helper()
	bin := requireTool(t, "redis-server")
	redisOnce.Do(func() { redisErr = startRedis(bin) })
	if redisErr != nil {
		t.Fatal(redisErr)
	}
	return "redis://" + redisAddr + "/0"
}

func startRedis(bin string) error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := filepath.Join(tmpRoot, "redis")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	redisAddr = "127.0.0.1:" + strconv.Itoa(port)
	redisSrv = exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"))
	redisSrv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := redisSrv.Start(); err != nil {
		return err
	}
	c := redis.NewClient(&redis.Options{Addr: redisAddr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			stopRedis()
			return fmt.Errorf("redis-server on %s not ready: %w", redisAddr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stopRedis stops the server by its PID and waits for it.
func stopRedis() {
	if redisSrv == nil || redisSrv.Process == nil {
		return
	}
	redisSrv.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { redisSrv.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		redisSrv.Process.Kill()
		<-done
	}
	redisSrv = nil
}
