// Package pgtest starts real PostgreSQL servers in temporary folders on loopback ports for
// tests and benchmarks. Each server is initialised with initdb and run as a child process
// it stops by PID; run as root, it runs the server as the user "postgres" (initdb and
// postgres refuse root). Nothing is mocked.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// BinEnv names a folder holding initdb and postgres, searched before anything else.
const BinEnv = "PLAN_POSTGRES_BIN"

// Server is one postgres process on 127.0.0.1 with its data in a temporary folder,
// restartable on the same port and data. Its methods are not safe for concurrent use.
type Server struct {
	bin, dir string
	port     int
	settings []string
	cred     *syscall.Credential
	cmd      *exec.Cmd
	exited   chan struct{}
}

// FindBin returns the folder holding initdb and postgres: $PLAN_POSTGRES_BIN, else the
// newest /usr/lib/postgresql/<version>/bin (where Debian's postgresql package puts them),
// else the folder of initdb found on PATH.
func FindBin() (string, error) {
	var tried []string
	if d := os.Getenv(BinEnv); d != "" {
		if hasServer(d) {
			return d, nil
		}
		tried = append(tried, d)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if hasServer(d) {
			return d, nil
		}
		tried = append(tried, d)
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && hasServer(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
		if hasServer(filepath.Dir(p)) {
			return filepath.Dir(p), nil
		}
	}
	return "", fmt.Errorf("no PostgreSQL server binaries (initdb, postgres) in $%s, /usr/lib/postgresql/*/bin or PATH (tried %s); apt-get install -y postgresql",
		BinEnv, strings.Join(tried, ", "))
}

func hasServer(dir string) bool {
	for _, b := range []string{"initdb", "postgres"} {
		if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
			return false
		}
	}
	return true
}

// version is the major version in /usr/lib/postgresql/<version>/bin.
func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// Start initialises a cluster in a new temporary folder (superuser "postgres", trust
// authentication on loopback, UTF-8, C locale), starts it on a free loopback port with its
// unix socket inside that folder, and returns once it accepts connections. settings are
// extra "name=value" server settings, applied after the defaults (fsync off and a
// max_connections of 300, which suit tests). Stop the server with Stop, then Remove.
func Start(settings ...string) (*Server, error) {
	bin, err := FindBin()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, settings: append([]string{"fsync=off", "max_connections=300"}, settings...)}
	if os.Geteuid() == 0 {
		if s.cred, err = postgresUser(); err != nil {
			return nil, err
		}
	}
	if s.dir, err = os.MkdirTemp("", "plan-postgres-"); err != nil {
		return nil, err
	}
	if err := s.initdb(); err != nil {
		s.Remove()
		return nil, err
	}
	for attempt := 0; attempt < 5; attempt++ {
		if s.port, err = FreePort(); err != nil {
			break
		}
		if err = s.Restart(); err == nil {
			return s, nil
		}
	}
	s.Remove()
	return nil, err
}

// postgresUser is the credential of the user "postgres", which the server runs as when the
// caller is root.
func postgresUser() (*syscall.Credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, the server must run as another user, and there is no user \"postgres\" (apt-get install -y postgresql creates it): %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// command runs name from the server's bin folder as the server's user.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "PGTZ=UTC")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: s.cred}
	diesWithParent(cmd.SysProcAttr)
	return cmd
}

func (s *Server) initdb() error {
	if s.cred != nil {
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return err
		}
	}
	if err := os.Mkdir(s.socketDir(), 0o700); err != nil {
		return err
	}
	if s.cred != nil {
		if err := os.Chown(s.socketDir(), int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return err
		}
	}
	out, err := s.command("initdb", "-D", s.dataDir(), "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput()
	if err != nil {
		return fmt.Errorf("initdb: %v: %s", err, lastLines(string(out), 5))
	}
	return nil
}

func (s *Server) dataDir() string   { return filepath.Join(s.dir, "data") }
func (s *Server) socketDir() string { return filepath.Join(s.dir, "sock") }
func (s *Server) logFile() string   { return filepath.Join(s.dir, "postgres.log") }

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// URL is a connection string for the database "postgres" as the superuser "postgres".
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// Port is the server's TCP port.
func (s *Server) Port() int { return s.port }

// Dir is the temporary folder holding the data, the socket and the log.
func (s *Server) Dir() string { return s.dir }

// PID is the postmaster's process id, or 0 when the server is not running.
func (s *Server) PID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Restart starts the server (again) on its port and data, and waits until it accepts
// connections.
func (s *Server) Restart() error {
	args := []string{"-D", s.dataDir(), "-p", strconv.Itoa(s.port), "-k", s.socketDir(),
		"-c", "listen_addresses=127.0.0.1", "-c", "logging_collector=off"}
	for _, kv := range s.settings {
		args = append(args, "-c", kv)
	}
	log, err := os.OpenFile(s.logFile(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	s.cmd = s.command("postgres", args...)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		s.cmd = nil
		return err
	}
	s.exited = make(chan struct{})
	cmd, exited := s.cmd, s.exited
	go func() { cmd.Wait(); close(exited) }()

	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, s.URL())
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(ctx)
		}
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			s.cmd = nil
			out, _ := os.ReadFile(s.logFile())
			return fmt.Errorf("postgres exited on start: %s", lastLines(string(out), 5))
		default:
		}
		if time.Now().After(deadline) {
			s.Kill()
			return fmt.Errorf("postgres on port %d not ready: %w", s.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill stops the server at once (immediate shutdown: every session ends without a
// checkpoint, as in a crash; committed work survives through the WAL) and waits for it.
func (s *Server) Kill() { s.signal(syscall.SIGQUIT) }

// Stop shuts the server down cleanly (fast shutdown: sessions end, a checkpoint is
// written) and waits for it.
func (s *Server) Stop() { s.signal(syscall.SIGINT) }

// signal sends sig to the postmaster and waits for it to exit, killing its process group
// after 20 s.
func (s *Server) signal(sig syscall.Signal) {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	pid := s.cmd.Process.Pid
	syscall.Kill(pid, sig)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		syscall.Kill(-pid, syscall.SIGKILL)
		<-s.exited
	}
	s.cmd = nil
}

// Remove stops the server if it runs and deletes its folder.
func (s *Server) Remove() {
	s.Stop()
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
