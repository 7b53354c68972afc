// Package redistest starts real redis-server processes on loopback ports for tests and
// benchmarks: single servers and Redis Clusters. Everything it starts it stops by PID.
package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is one redis-server process on 127.0.0.1, restartable on the same port and
// directory. Its methods are not safe for concurrent use.
type Server struct {
	bin, dir string
	port     int
	args     []string
	cmd      *exec.Cmd
	exited   chan struct{}
}

// Start starts redis-server from PATH in dir on a free loopback port, with persistence off
// unless args turn it on, and returns once it answers PING. args are extra
// "--name value" configuration arguments.
func Start(dir string, args ...string) (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server not found on PATH (apt-get install -y redis-server)")
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		s := &Server{bin: bin, dir: dir, port: port, args: args}
		if lastErr = s.Restart(); lastErr == nil {
			return s, nil
		}
	}
	return nil, lastErr
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Addr is the server's "127.0.0.1:port".
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Port is the server's port.
func (s *Server) Port() int { return s.port }

// PID is the process id, or 0 when the server is not running.
func (s *Server) PID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Restart starts the server (again) on its port and directory and waits until it answers.
func (s *Server) Restart() error {
	args := []string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--daemonize", "no", "--logfile", filepath.Join(s.dir, "redis.log"),
	}
	args = append(args, s.args...)
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.exited = make(chan struct{})
	cmd, exited := s.cmd, s.exited
	go func() { cmd.Wait(); close(exited) }()

	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
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
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			s.cmd = nil
			return fmt.Errorf("redis-server exited on start: %s", lastLines(string(log), 5))
		default:
		}
		if time.Now().After(deadline) {
			s.Kill()
			return fmt.Errorf("redis-server on %s not ready: %w", s.Addr(), err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill stops the server at once, as a crash or a pulled cable would, and waits for it.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	s.cmd = nil
}

// Stop shuts the server down cleanly and waits for it (SIGKILL after 10 s).
func (s *Server) Stop() {
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
