package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// testConfig is the quick mode at minimal sizes and timings: enough to run every table
// generator, far too short for meaningful figures.
func testConfig() config {
	c := quickConfig()
	c.mode = "test"
	c.opSizes = []int{10}
	c.opTiming = timing{target: 200 * time.Microsecond, reps: 1, maxIters: 20}
	c.waitRacy = false
	c.goroutines = []int{1, 4}
	c.contention = 10 * time.Millisecond
	c.overheadSizes = []int{0, 10}
	c.overheadTiming = timing{target: 200 * time.Microsecond, reps: 1, maxIters: 20}
	c.costSteps = 4
	return c
}

// TestTablesWellFormed runs every table generator and checks the Markdown: a heading per
// table, one header, one separator and rows all of the same width, no empty cell.
func TestTablesWellFormed(t *testing.T) {
	cfg := testConfig()
	var out bytes.Buffer
	if err := run(context.Background(), &out, cfg); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.HasPrefix(text, "## plan benchmarks (test run)\n") {
		t.Fatalf("missing header:\n%s", text)
	}
	for _, want := range []string{"- Go: ", "- CPU: ", "- Cores: "} {
		if !strings.Contains(text, want) {
			t.Errorf("header lacks %q", want)
		}
	}
	var titles []string
	for _, block := range strings.Split(text, "\n### ")[1:] {
		lines := strings.Split(block, "\n")
		titles = append(titles, lines[0])
		var rows []string
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "|") {
				rows = append(rows, l)
			}
		}
		if len(rows) < 3 {
			t.Errorf("%s: %d table lines", lines[0], len(rows))
			continue
		}
		cols := cells(rows[0])
		for i, r := range rows {
			c := cells(r)
			if len(c) != len(cols) {
				t.Errorf("%s: line %d has %d cells, header %d", lines[0], i+1, len(c), len(cols))
			}
			for j, v := range c {
				switch {
				case v == "":
					t.Errorf("%s: line %d cell %d is empty", lines[0], i+1, j+1)
				case i == 1 && strings.Trim(v, "-:") != "":
					t.Errorf("%s: separator cell %q", lines[0], v)
				}
			}
		}
	}
	wantTables := []string{"1a.", "1b.", "1c.", "2a.", "2b.", "2c.", "3a.", "4.", "5."}
	if len(titles) < len(wantTables) {
		t.Fatalf("got tables %q", titles)
	}
	for _, prefix := range wantTables {
		found := false
		for _, title := range titles {
			found = found || strings.HasPrefix(title, prefix)
		}
		if !found {
			t.Errorf("no table %s in %q", prefix, titles)
		}
	}
	if !strings.Contains(text, "All three methods leave the same plan body: yes.") {
		t.Errorf("the edit-loop methods disagree on the resulting plan")
	}
}

// cells splits one Markdown table line into trimmed cells, honouring escaped pipes.
func cells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	var out []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

func TestTableCheckRejectsRaggedRows(t *testing.T) {
	tb := newTable("x", "a", "b")
	tb.add("1")
	if tb.check() == nil {
		t.Fatal("a short row passed")
	}
	tb = newTable("x", "a", "b")
	tb.add("1", " ")
	if tb.check() == nil {
		t.Fatal("an empty cell passed")
	}
}
