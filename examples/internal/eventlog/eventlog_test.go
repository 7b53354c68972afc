package eventlog

import (
	"testing"

	"github.com/einoplan/plan/api"

	"github.com/stretchr/testify/require"
)

func TestBar(t *testing.T) {
	for _, tc := range []struct {
		done, skipped, total int
		want                 string
	}{
		{0, 0, 0, "[----------]"},
		{2, 0, 5, "[####------]"},
		{1, 1, 3, "[######----]"},
		{5, 0, 5, "[##########]"},
	} {
		require.Equal(t, tc.want, Bar(progress(tc.done, tc.skipped, tc.total), 10))
	}
}

func progress(done, skipped, total int) api.Progress {
	return api.Progress{Total: total, Completed: done, Skipped: skipped}
}

func TestShortenKeepsRunesWhole(t *testing.T) {
	require.Equal(t, "ab", Shorten("ab", 5))
	require.Equal(t, `a\nb`, Shorten("a\nb", 10), "one line")
	require.Equal(t, "计划计...", Shorten("计划计划计划计划", 6))
}
