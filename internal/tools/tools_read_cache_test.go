package tools

import (
	"strings"
	"testing"

	"github.com/einoplan/plan/internal/document"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The read cache stays within its bytes whatever the results weigh, keeps its tally true
// when a plan's result is replaced, and never keeps a result too large for it.
func TestReadCacheStaysWithinItsBytes(t *testing.T) {
	var c readCache
	big := strings.Repeat("x", maxReadCacheBytes/32)
	for i := range 100 {
		p := &document.Plan{Name: "p" + Itoa(i%40), Revision: int64(i)}
		c.put(p, big)
		got, ok := c.get(p)
		require.True(t, ok)
		require.Equal(t, big, got)
		total := 0
		for _, r := range c.results {
			total += len(r.json)
		}
		require.Equal(t, total, c.bytes)
		require.LessOrEqual(t, c.bytes, maxReadCacheBytes)
	}
	huge := &document.Plan{Name: "huge"}
	c.put(huge, strings.Repeat("y", maxReadCacheBytes/16+1))
	_, ok := c.get(huge)
	assert.False(t, ok, "a result over a sixteenth of the bytes is not kept")
}
