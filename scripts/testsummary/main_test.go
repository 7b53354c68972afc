package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A module's line names the test packages that failed, and so does the closing summary.
func TestTheSummaryNamesThePackagesThatFailed(t *testing.T) {
	events := `{"Action":"pass","Package":"ex/ok","Test":"TestA"}
{"Action":"pass","Package":"ex/ok"}
{"Action":"output","Package":"ex/bad","Test":"TestB","Output":"    bad_test.go:3: no\n"}
{"Action":"fail","Package":"ex/bad","Test":"TestB"}
{"Action":"fail","Package":"ex/bad"}
`
	var out bytes.Buffer
	m := read(strings.NewReader(events), &out, "ex")
	if got := line(m); !strings.HasSuffix(got, "1 passed, 1 failed, 0 skipped; failed packages: ex/bad") {
		t.Fatalf("module line %q", got)
	}
	state := filepath.Join(t.TempDir(), "state")
	f, err := os.Create(state)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"Name":"ex","Failed":1,"FailedPackages":["ex/bad"]}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out.Reset()
	if summarize(state, &out) == 0 || !strings.Contains(out.String(), "packages that failed: ex/bad\n") {
		t.Fatalf("summary %q", out.String())
	}
}

// scripts/test.sh tells where it is while it runs: a line as each module starts, and one
// with its result and duration as it ends, naming the packages that failed. Run here with a
// go command that runs no test (one module's tests fail), so it takes seconds.
func TestTheTestScriptPrintsAProgressLinePerModule(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("scripts/test.sh needs flock (util-linux)")
	}
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	stubs := t.TempDir()
	goStub := `#!/bin/sh
case "$1" in
vet) exit 0 ;;
test)
  case " $* " in *" -json "*) ;; *) exit 0 ;; esac
  if [ "$PWD" = "$FAIL_MODULE" ]; then
    echo '{"Action":"fail","Package":"example.com/broken","Test":"TestIt"}'
    echo '{"Action":"fail","Package":"example.com/broken"}'
    exit 1
  fi
  echo '{"Action":"pass","Package":"example.com/fine","Test":"TestIt"}'
  echo '{"Action":"pass","Package":"example.com/fine"}'
  exit 0 ;;
esac
exec "$REAL_GO" "$@"
`
	for name, body := range map[string]string{"go": goStub, "staticcheck": "#!/bin/sh\nexit 0\n"} {
		if err := os.WriteFile(filepath.Join(stubs, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "test.sh"))
	cmd.Env = append(os.Environ(), "PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"),
		"REAL_GO="+realGo, "FAIL_MODULE="+filepath.Join(root, "board"), "PLAN_TEST_NO_INSTALL=1")
	raw, err := cmd.CombinedOutput()
	out := string(raw)
	if err == nil {
		t.Fatalf("a failing module fails the script:\n%s", out)
	}
	for _, want := range []string{
		"compiling the race-instrumented dependencies",
		">> .: started\n", ">> board: started\n", ">> cmd/planctl: started\n",
		"<< .: ok in ", "<< cmd/planctl: ok in ",
		"== board: 0 passed, 1 failed, 0 skipped; failed packages: example.com/broken\n<< board: FAILED in ",
		"packages that failed: example.com/broken\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Index(out, ">> board: started") > strings.Index(out, "<< board: FAILED") {
		t.Errorf("a module's start is told before its result:\n%s", out)
	}
}
