// Command testsummary reads `go test -json` events on standard input, prints the output of
// every failed test and package as it goes, and ends with one line per module (naming the
// packages that failed) and a final count, so that no suite can be skipped silently: each skip is listed with its reason.
//
//	go test -json ./... | go run ./scripts/testsummary -module backends/redis -state FILE
//
// With -state, counts accumulate in FILE across modules; -final prints the closing summary
// from FILE and exits non-zero when anything failed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// module is what one module's run counted; reasons maps a skip reason to how many tests
// gave it.
type module struct {
	Name                    string
	Passed, Failed, Skipped int
	Reasons                 map[string]int
	Broken                  bool // a package failed without a failing test: a build error, a panic, a timeout
	FailedPackages          []string
}

func main() {
	name := flag.String("module", ".", "the module these events come from")
	state := flag.String("state", "", "a file that accumulates the modules' counts")
	final := flag.Bool("final", false, "print the closing summary from -state and exit")
	flag.Parse()
	if *final {
		os.Exit(summarize(*state, os.Stdout))
	}
	m := read(os.Stdin, os.Stdout, *name)
	if *state != "" {
		f, err := os.OpenFile(*state, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			json.NewEncoder(f).Encode(m)
			f.Close()
		}
	}
	fmt.Println(line(m))
	if m.Failed > 0 || m.Broken {
		os.Exit(1)
	}
}

// read consumes the events of one module, echoing what a failure printed.
func read(r io.Reader, w io.Writer, name string) module {
	m := module{Name: name, Reasons: map[string]int{}}
	outputs := map[string][]string{} // package/test → its output lines
	lastSkip := map[string]string{}  // package/test → its skip reason
	failedTests := map[string]bool{} // packages with a failing test
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text()) // not an event: a build error or a vet message
			continue
		}
		key := e.Package + "/" + e.Test
		switch e.Action {
		case "output", "build-output":
			outputs[key] = append(outputs[key], e.Output)
			if e.Test != "" {
				if reason := skipReason(e.Output); reason != "" {
					lastSkip[key] = reason
				}
			}
		case "pass":
			if e.Test != "" && !strings.Contains(e.Test, "/") {
				m.Passed++
			}
			delete(outputs, key)
		case "skip":
			if e.Test != "" && !strings.Contains(e.Test, "/") {
				m.Skipped++
				reason := lastSkip[key]
				if reason == "" {
					reason = "no reason given"
				}
				m.Reasons[reason]++
			}
			delete(outputs, key)
		case "fail":
			if e.Test != "" {
				if !strings.Contains(e.Test, "/") {
					m.Failed++
				}
				failedTests[e.Package] = true
			} else {
				m.FailedPackages = append(m.FailedPackages, e.Package)
				if !failedTests[e.Package] {
					m.Broken = true
				}
			}
			fmt.Fprint(w, strings.Join(outputs[key], ""))
			delete(outputs, key)
		}
	}
	return m
}

// skipReason is the text a skipped test logged: "    file_test.go:12: reason".
func skipReason(out string) string {
	out = strings.TrimSpace(out)
	if strings.HasPrefix(out, "---") || strings.HasPrefix(out, "===") || out == "" {
		return ""
	}
	if i := strings.Index(out, ".go:"); i >= 0 {
		if j := strings.Index(out[i:], ": "); j >= 0 {
			out = out[i+j+2:]
		}
	}
	if len(out) > 120 {
		out = out[:120] + "…"
	}
	return out
}

func line(m module) string {
	s := fmt.Sprintf("== %s: %d passed, %d failed, %d skipped", m.Name, m.Passed, m.Failed, m.Skipped)
	if m.Broken {
		s += " (a package failed to build or crashed)"
	}
	if len(m.FailedPackages) > 0 {
		s += "; failed packages: " + strings.Join(m.FailedPackages, ", ")
	}
	return s
}

// summarize prints each module's line, every skip reason, and the closing count.
func summarize(state string, w io.Writer) int {
	raw, err := os.ReadFile(state)
	if err != nil {
		fmt.Fprintln(w, "no test ran:", err)
		return 1
	}
	var total module
	reasons := map[string]int{}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var ran, broken, failed []string
	for {
		var m module
		if err := dec.Decode(&m); err != nil {
			break
		}
		ran = append(ran, m.Name)
		if m.Broken {
			broken = append(broken, m.Name)
		}
		failed = append(failed, m.FailedPackages...)
		total.Passed += m.Passed
		total.Failed += m.Failed
		total.Skipped += m.Skipped
		for r, n := range m.Reasons {
			reasons[m.Name+": "+r] += n
		}
	}
	keys := make([]string, 0, len(reasons))
	for r := range reasons {
		keys = append(keys, r)
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "suites run: %s\n", strings.Join(ran, ", "))
	if len(broken) > 0 {
		fmt.Fprintf(w, "suites that failed to build or crashed: %s\n", strings.Join(broken, ", "))
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "packages that failed: %s\n", strings.Join(failed, ", "))
	}
	for _, r := range keys {
		fmt.Fprintf(w, "skipped %d× in %s\n", reasons[r], r)
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", total.Passed, total.Failed, total.Skipped)
	if total.Failed > 0 || len(broken) > 0 {
		return 1
	}
	return 0
}
