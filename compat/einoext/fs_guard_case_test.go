package einoext_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// On a file system that ignores case (macOS, Windows), ".PLANS/PLANS/x.md" is the plan file
// and ".PLANS/.PLANS.APPROVAL-KEY" the key: the guard refuses the plans folder and the key
// whatever the case of the path naming them, and a grep of the project in another case.
func TestEinoFileToolsRefuseThePlansAndTheKeyInAnyCase(t *testing.T) {
	c := newCoder(t)
	c.approved(t, "readme", "# Readme\n- [ ] Fix a typo\n")
	key := c.keyFile(t)
	upper := func(p string) string {
		rel, err := filepath.Rel(c.project, p)
		require.NoError(t, err)
		return filepath.Join(c.project, strings.ToUpper(rel))
	}
	results := c.run(t,
		call(t, "read_file", map[string]any{"file_path": upper(key)}),
		call(t, "write_file", map[string]any{"file_path": upper(c.planFile("readme")), "content": "- [x] Fix a typo\n"}),
		call(t, "write_file", map[string]any{"file_path": upper(key), "content": strings.Repeat("00", 32)}),
		call(t, "ls", map[string]any{"path": upper(filepath.Join(c.root, "plans"))}),
		call(t, "grep", map[string]any{"pattern": "[0-9a-f]", "path": strings.ToUpper(c.project)}),
	)
	require.Len(t, results, 5, results)
	for _, r := range results[:4] {
		refused(t, r, "plans_off_limits")
	}
	refused(t, results[4], "search_covers_plans")
}
