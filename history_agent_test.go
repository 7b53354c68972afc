package plan_test

import (
	"context"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// Two agents on one plan: after the teammate's step move, the worker's stale write is
// refused with a message naming since_revision, and read_plan with since_revision returns
// only what changed, not the body.
func TestReadPlanSinceRevisionThroughAgents(t *testing.T) {
	for _, bc := range backendCases() {
		t.Run(bc.name, func(t *testing.T) {
			ctx := context.Background()
			backend, _ := bc.new(t)
			store, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HistoryLimit: plan.DefaultHistoryLimit})
			require.NoError(t, err)
			body := "# Ship\n- [ ] build\n- [ ] test\n- [ ] tag\n"
			_, err = store.Put(ctx, plan.Update{Name: "ship", Content: &body, Author: "planner"})
			require.NoError(t, err)
			agent := func(name string) *plan.Config {
				return &plan.Config{Backend: backend, AgentName: name, HistoryLimit: plan.DefaultHistoryLimit}
			}

			mate, err := plan.New(ctx, agent("teammate"))
			require.NoError(t, err)
			results := toolResults(runAgent(t, plantest.NewScriptedModel(
				plantest.CallTool("update_plan_step", `{"name":"ship","step":1,"status":"in_progress","last_known_revision":1}`),
				plantest.Answer("moved")), mate))
			require.Len(t, results, 1)
			require.Empty(t, errorCode(t, results[0]), results[0])

			worker, err := plan.New(ctx, agent("worker"))
			require.NoError(t, err)
			results = toolResults(runAgent(t, plantest.NewScriptedModel(
				plantest.CallTool("write_plan", `{"name":"ship","content":"# Ship\n- [ ] rebuild\n","last_known_revision":1}`),
				plantest.CallTool("read_plan", `{"name":"ship","since_revision":1}`),
				plantest.CallTool("read_plan", `{"name":"ship","since_revision":2}`),
				plantest.CallTool("read_plan", `{"name":"ship","since_revision":7}`),
				plantest.CallTool("read_plan", `{"name":"ship","since_revision":"1"}`),
				plantest.CallTool("update_plan_step", `{"name":"ship","step":2,"status":"in_progress","last_known_revision":1}`),
				plantest.Answer("done")), worker))
			require.Len(t, results, 6)

			assert.Equal(t, "revision_conflict", errorCode(t, results[0]))
			assert.Contains(t, results[0], "since_revision 1")

			var changes struct {
				Revision      int64          `json:"revision"`
				SinceRevision int64          `json:"since_revision"`
				Changes       string         `json:"changes"`
				Progress      map[string]any `json:"progress"`
				Content       *string        `json:"content"`
			}
			require.NoError(t, sonic.UnmarshalString(results[1], &changes), results[1])
			assert.EqualValues(t, 2, changes.Revision)
			assert.EqualValues(t, 1, changes.SinceRevision)
			assert.Equal(t, "@@ -2 +2 @@\n-- [ ] build\n+- [~] build (@teammate)\n", changes.Changes)
			assert.NotEmpty(t, changes.Progress)
			assert.Nil(t, changes.Content, "no body")

			changes.Changes = "x"
			require.NoError(t, sonic.UnmarshalString(results[2], &changes), results[2])
			assert.Equal(t, "", changes.Changes, "nothing changed since the current revision")

			var full struct {
				Revision int64  `json:"revision"`
				Content  string `json:"content"`
			}
			require.NoError(t, sonic.UnmarshalString(results[3], &full), results[3])
			assert.EqualValues(t, 2, full.Revision, "a revision never kept gets the whole plan")
			assert.Contains(t, full.Content, "- [~] build")
			assert.Equal(t, "invalid_argument", errorCode(t, results[4]))
			assert.Empty(t, errorCode(t, results[5]), "a stale move of another step still applies: %s", results[5])

			h, err := store.History(ctx, "ship")
			require.NoError(t, err)
			require.Len(t, h, 3)
			assert.Equal(t, []string{"worker", "teammate", "planner"}, []string{h[0].Author, h[1].Author, h[2].Author})
			assert.Equal(t, plan.ActionStep, h[0].Action)
		})
	}
}
