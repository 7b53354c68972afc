// Package childtest runs tests across processes: a test starts children of its own test
// binary, each running one named test of the same binary, and talks to them over their
// standard input and output.
//
// The parent side:
//
//	c := childtest.Start(t, "TestWriterChild", map[string]string{"ROOT": root})
//	line, err := c.Stdout.ReadString('\n')
//	...
//	require.NoError(t, c.Wait())
//
// The child side is an ordinary test that skips unless it runs as such a child:
//
//	func TestWriterChild(t *testing.T) {
//		childtest.SkipUnlessChild(t)
//		root := os.Getenv("ROOT")
//		...
//	}
//
// Children are killed, if still running, when the test that started them ends.
package childtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The variables the parent sets in a child's environment: the test the child runs and the
// child's number among those one Run started.
const (
	testEnv  = "PLAN_CHILDTEST"
	indexEnv = "PLAN_CHILDTEST_INDEX"
)

// Timeout bounds each child's run (its -test.timeout).
const Timeout = 5 * time.Minute

// Child is one running child process.
type Child struct {
	// Cmd is the child's command, started.
	Cmd *exec.Cmd
	// Stdin is the child's standard input; Wait closes it.
	Stdin io.WriteCloser
	// Stdout reads the child's standard output, where the child test's fmt.Print lines and
	// the testing package's own report go.
	Stdout *bufio.Reader

	stderr  syncBuffer
	rest    bytes.Buffer
	wait    sync.Once
	waitErr error
}

var testName = regexp.MustCompile(`^Test[^/]*$`)

// Start starts one child of the current test binary running the top-level test named
// test, with env added to its environment. The child is killed, if still running, when t
// ends.
func Start(t testing.TB, test string, env map[string]string) *Child {
	t.Helper()
	return start(t, test, env, -1)
}

// Run starts n children running test, each with env added to its environment; Index
// tells each child its number, from 0.
func Run(t testing.TB, test string, env map[string]string, n int) []*Child {
	t.Helper()
	children := make([]*Child, n)
	for i := range children {
		children[i] = start(t, test, env, i)
	}
	return children
}

func start(t testing.TB, test string, env map[string]string, index int) *Child {
	t.Helper()
	if !testName.MatchString(test) {
		t.Fatalf("childtest: %q is not the name of a top-level test", test)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(test)+"$", "-test.count=1",
		"-test.timeout="+Timeout.String())
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != testEnv && k != indexEnv {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, testEnv+"="+test)
	if index >= 0 {
		cmd.Env = append(cmd.Env, indexEnv+"="+strconv.Itoa(index))
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	c := &Child{Cmd: cmd}
	cmd.Stderr = &c.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("childtest: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("childtest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("childtest: starting %s: %v", test, err)
	}
	c.Stdin, c.Stdout = stdin, bufio.NewReader(stdout)
	t.Cleanup(func() {
		c.Kill()
		_ = c.Wait()
		if t.Failed() {
			t.Logf("child %s (pid %d):\n%s", test, cmd.Process.Pid, c.Output())
		}
	})
	return c
}

// Wait closes the child's standard input, reads what is left of its standard output and
// waits for it to exit. The error, when the child failed, holds what it printed. Calls
// after the first, from any goroutine, return the first one's result once it is known.
// Since Wait reads Stdout, no other goroutine may be reading it then; the same holds at the
// end of the test, which kills the child and waits for it.
func (c *Child) Wait() error {
	c.wait.Do(func() {
		_ = c.Stdin.Close()
		_, _ = io.Copy(&c.rest, c.Stdout)
		if err := c.Cmd.Wait(); err != nil {
			c.waitErr = fmt.Errorf("%w\n%s", err, c.Output())
		}
	})
	return c.waitErr
}

// Kill kills the child at once, if it is still running; Wait then reaps it.
func (c *Child) Kill() { _ = c.Cmd.Process.Kill() }

// Output is what the child printed that the parent did not read from Stdout before Wait,
// followed by its standard error.
func (c *Child) Output() string {
	return c.rest.String() + c.stderr.String()
}

// Stderr is what the child printed on its standard error so far.
func (c *Child) Stderr() string { return c.stderr.String() }

// WaitAll waits for every child and returns their errors joined, each naming its child.
func WaitAll(children []*Child) error {
	var errs []error
	for i, c := range children {
		if err := c.Wait(); err != nil {
			errs = append(errs, fmt.Errorf("child %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// IsChild reports whether this process is a child started by Start or Run.
func IsChild() bool { return os.Getenv(testEnv) != "" }

// SkipUnlessChild skips t unless this process is a child started to run t.
func SkipUnlessChild(t testing.TB) {
	t.Helper()
	name, _, _ := strings.Cut(t.Name(), "/")
	if os.Getenv(testEnv) != name {
		t.Skip("runs only as a child process of another test")
	}
}

// Index is this child's number among the children one Run started, from 0, or -1 when
// the process is not such a child.
func Index() int {
	i, err := strconv.Atoi(os.Getenv(indexEnv))
	if err != nil {
		return -1
	}
	return i
}

// syncBuffer is a bytes.Buffer safe to write from the goroutine exec copies standard
// error with while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
