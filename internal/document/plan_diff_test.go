package document

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// diffPlans shows the header fields that changed, then a unified diff of the body; equal plans
// diff to nothing.
func TestDiffPlansHeaderAndBody(t *testing.T) {
	a := &Plan{Title: "Ship", Status: "draft", Author: "planner", Content: "# Ship\n- [ ] build\n- [ ] test\n"}
	b := &Plan{Title: "Ship \"it\"", Status: "in-progress", Author: "planner", Content: "# Ship\n- [x] build\n- [ ] test\n"}
	assert.Equal(t, "title: \"Ship\" -> \"Ship \\\"it\\\"\"\nstatus: \"draft\" -> \"in-progress\"\n"+
		"--- ship@1\n+++ ship@2\n@@ -1,3 +1,3 @@\n # Ship\n-- [ ] build\n+- [x] build\n - [ ] test\n",
		DiffPlans(a, b, "ship@1", "ship@2", 3))
	assert.Equal(t, "", DiffPlans(a, a, "x", "y", 3))
}
