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
