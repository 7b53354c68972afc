//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/einoplan/plan/backends/redis/redistest"
)

// The tests that run planctl as people do build it once, start a redis-server once when a
// test needs one, and remove or stop both at the end.

var (
	tmpRoot string

	buildOnce sync.Once
	binPath   string
	buildErr  error

	redisOnce sync.Once
	redisSrv  *redistest.Server
	redisErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "planctl-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tmpRoot = dir
	// planctl keeps the approval keys it makes under the user's config folder: the tests'
	// keys, and those of the planctl they run, go in a folder of their own.
	if err := os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// planctl speaks the locale's language: the tests that do not choose one read English,
	// whatever locale runs them.
	for _, v := range []string{"LC_ALL", "LC_MESSAGES"} {
		os.Unsetenv(v)
	}
	os.Setenv("LANG", "C.UTF-8")
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
	return "redis://" + redisSrv.Addr() + "/0"
}

func startRedis(string) error {
	dir := filepath.Join(tmpRoot, "redis")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var err error
	redisSrv, err = redistest.Start(dir)
	return err
}

// stopRedis stops the server by its PID and waits for it.
func stopRedis() {
	if redisSrv != nil {
		redisSrv.Stop()
		redisSrv = nil
	}
}
