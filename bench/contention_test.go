package main

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestContentionRows checks the lines scripts/bench-contention.sh reads: one per backend,
// target and goroutine count (Redis too when redis-server is installed), six fields, a positive rate and no lost update.
func TestContentionRows(t *testing.T) {
	cfg := testConfig()
	var out bytes.Buffer
	if err := contentionRows(context.Background(), &out, cfg, true); err != nil {
		t.Fatal(err)
	}
	kinds := len(cfg.kinds)
	if _, err := exec.LookPath("redis-server"); err == nil {
		kinds++
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if want := kinds * 2 * len(cfg.goroutines); len(lines) != want {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), want, out.String())
	}
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 6 {
			t.Fatalf("%q: %d fields", l, len(f))
		}
		if rate, err := strconv.ParseFloat(f[3], 64); err != nil || rate <= 0 {
			t.Errorf("%q: writes per second %q", l, f[3])
		}
		if f[5] != "0" {
			t.Errorf("%q: lost updates", l)
		}
	}
}
