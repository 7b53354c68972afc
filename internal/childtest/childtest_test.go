package childtest_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/internal/childtest"
)

// TestChild is the child side of the tests below; CHILD_MODE says what it does.
func TestChild(t *testing.T) {
	childtest.SkipUnlessChild(t)
	switch mode := os.Getenv("CHILD_MODE"); mode {
	case "echo":
		// Say which child this is, then answer every line until stdin closes.
		fmt.Printf("ready %d %s\n", childtest.Index(), os.Getenv("CHILD_WORD"))
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			fmt.Println("got", in.Text())
		}
	case "fail":
		t.Fatal("failing on purpose")
	case "hang":
		fmt.Println("hanging")
		_, _ = io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour)
	default:
		t.Fatalf("unknown mode %q", mode)
	}
}

// The parent of this test is not a child, and has no child number.
func TestParentIsNoChild(t *testing.T) {
	if childtest.IsChild() {
		t.Skip("this process is a child")
	}
	if childtest.Index() != -1 {
		t.Fatalf("index %d outside a child", childtest.Index())
	}
}

// Run starts n children, each told its number and the environment given, each talking to
// the parent over its standard input and output; Wait reports a clean exit.
func TestRunStartsNumberedChildren(t *testing.T) {
	children := childtest.Run(t, "TestChild", map[string]string{"CHILD_MODE": "echo", "CHILD_WORD": "hi"}, 3)
	for i, c := range children {
		line, err := c.Stdout.ReadString('\n')
		if err != nil || line != fmt.Sprintf("ready %d hi\n", i) {
			t.Fatalf("child %d: %q, %v\n%s", i, line, err, c.Stderr())
		}
		if _, err := io.WriteString(c.Stdin, "hello\n"); err != nil {
			t.Fatal(err)
		}
		if line, err = c.Stdout.ReadString('\n'); err != nil || line != "got hello\n" {
			t.Fatalf("child %d: %q, %v", i, line, err)
		}
	}
	if err := childtest.WaitAll(children); err != nil {
		t.Fatal(err)
	}
	if err := children[0].Wait(); err != nil {
		t.Fatalf("a second Wait: %v", err)
	}
}

// Start starts one child with no number.
func TestStartStartsOneChild(t *testing.T) {
	c := childtest.Start(t, "TestChild", map[string]string{"CHILD_MODE": "echo"})
	line, err := c.Stdout.ReadString('\n')
	if err != nil || line != "ready -1 \n" {
		t.Fatalf("%q, %v\n%s", line, err, c.Stderr())
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
}

// A child whose test fails exits with an error that holds what the test reported.
func TestWaitReportsAFailedChild(t *testing.T) {
	c := childtest.Start(t, "TestChild", map[string]string{"CHILD_MODE": "fail"})
	err := c.Wait()
	if err == nil || !strings.Contains(err.Error(), "failing on purpose") {
		t.Fatalf("Wait: %v", err)
	}
	if err := childtest.WaitAll([]*childtest.Child{c}); err == nil || !strings.HasPrefix(err.Error(), "child 0: ") {
		t.Fatalf("WaitAll: %v", err)
	}
}

// Kill stops a child that would not end by itself.
func TestKillStopsAChild(t *testing.T) {
	c := childtest.Start(t, "TestChild", map[string]string{"CHILD_MODE": "hang"})
	if line, err := c.Stdout.ReadString('\n'); err != nil || line != "hanging\n" {
		t.Fatalf("%q, %v\n%s", line, err, c.Stderr())
	}
	c.Kill()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a killed child exited cleanly")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the killed child is still running")
	}
}

// Only top-level tests can be started.
func TestStartRefusesASubtest(t *testing.T) {
	ft := &fatalRecorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		childtest.Start(ft, "TestChild/sub", nil)
	}()
	if !ft.fatal {
		t.Fatal("a subtest was started")
	}
}

// fatalRecorder records a Fatalf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	fatal bool
}

func (f *fatalRecorder) Fatalf(string, ...any) {
	f.fatal = true
	panic("fatal")
}
