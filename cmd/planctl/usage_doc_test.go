package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The usage block of docs/watch-and-planctl.md is what `planctl -h` prints, word for word.
func TestDocsShowTheUsagePlanctlPrints(t *testing.T) {
	doc, err := os.ReadFile("../../docs/watch-and-planctl.md")
	require.NoError(t, err)
	r := planctl(t, "-h")
	require.Equal(t, exitOK, r.code)
	assert.Contains(t, string(doc), "```text\n$ planctl -h\n"+r.stdout+"```\n",
		"docs/watch-and-planctl.md must show `planctl -h` as it prints; copy it from `go run ./cmd/planctl -h`")
}
