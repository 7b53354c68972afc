package plan_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A list_plans page is never over 16 KiB, warnings included.
func TestListPageWithWarningsStaysWithin16KiB(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	s := storeOn(t, mem, "")
	for i := range 100 {
		_, err := s.Put(ctx, plan.Update{Name: fmt.Sprintf("p%03d", i), Title: strings.Repeat("t", 100),
			Status: strings.Repeat("s", 40), Author: strings.Repeat("a", 40),
			Content: ptrTo("- [ ] " + strings.Repeat("x", 100) + "\n")})
		require.NoError(t, err)
	}
	for i := range 20 {
		name := fmt.Sprintf("%s%02d", strings.Repeat("z", 62), i)
		require.NoError(t, mem.Write(ctx, &plan.WriteRequest{FilePath: "/plans/" + name + ".md", Content: "not a plan"}))
	}
	mw, err := plan.New(ctx, &plan.Config{Backend: mem})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(plantest.CallTool("list_plans", `{"limit":200}`), plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	require.Len(t, results, 1)
	assert.Contains(t, results[0], `"warnings"`)
	assert.LessOrEqual(t, len(results[0]), 16<<10, "a page is never over 16 KiB")
}
