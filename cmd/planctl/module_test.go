package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// go install github.com/einoplan/plan/cmd/planctl@latest refuses a module whose go.mod has
// a replace or exclude directive: development goes through go.work instead.
func TestModuleStaysInstallable(t *testing.T) {
	raw, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		assert.False(t, strings.HasPrefix(line, "replace") || strings.HasPrefix(line, "exclude"), "go.mod: %s", line)
	}
	work, err := os.ReadFile("go.work")
	require.NoError(t, err)
	assert.Contains(t, string(work), "github.com/einoplan/plan => ../..")
}

// The usage block of docs/watch-and-planctl.md is what `planctl -h` prints, word for word.
func TestDocsShowTheUsagePlanctlPrints(t *testing.T) {
	doc, err := os.ReadFile("../../docs/watch-and-planctl.md")
	require.NoError(t, err)
	r := planctl(t, "-h")
	require.Equal(t, exitOK, r.code)
	assert.Contains(t, string(doc), "```text\n$ planctl -h\n"+r.stdout+"```\n",
		"docs/watch-and-planctl.md must show `planctl -h` as it prints; copy it from `go run ./cmd/planctl -h`")
}
