package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// show prints a step's "(after 2, 3)" as written, names the pending steps that wait and for
// what, and the next step is the first ready one; import refuses a cycle.
func TestShowSaysWhatStepsWaitFor(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	file := filepath.Join(t.TempDir(), "graph.md")
	require.NoError(t, os.WriteFile(file, []byte("# G\n- [x] a\n- [~] b\n- [ ] c (after 2)\n- [ ] d (after 1)\n"), 0o600))
	r := planctl(t, "-dir", dir, "import", "g", file)
	require.Equal(t, exitOK, r.code, r.stderr)
	out := planctl(t, "-dir", dir, "show", "g").stdout
	assert.Contains(t, out, "next: step 4, d (after 1)")
	assert.Contains(t, out, "\nwaiting:  step 3 for 2\n")
	assert.Contains(t, out, "c (after 2)")

	require.NoError(t, os.WriteFile(file, []byte("# G\n- [ ] a (after 2)\n- [ ] b (after 1)\n"), 0o600))
	r = planctl(t, "-dir", dir, "import", "h", file)
	assert.NotEqual(t, exitOK, r.code)
	s := agentStore(t, dir, "x")
	_, err := s.Get(context.Background(), "h")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err), "nothing was written")
}
