package plan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// update_plan_step answers with the new revision, the step, the progress and the next step
// only; a state spelled otherwise ("done" is completed) is named under "normalized".
func TestUpdatePlanStepResultIsCompact(t *testing.T) {
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	_, err = tools["write_plan"].InvokableRun(ctx, `{"name":"c","content":"- [ ] a\n- [ ] b\n- [ ] c\n"}`)
	require.NoError(t, err)
	for _, tc := range []struct{ args, want string }{
		{`{"name":"c","step":1,"status":"failed","last_known_revision":1}`,
			`{"revision":2,"step":1,"progress":{"total":3,"pending":2,"failed":1,"percent":0},"next_step":{"number":2,"text":"b"}}`},
		{`{"name":"c","step":2,"status":"skipped"}`,
			`{"revision":3,"step":2,"progress":{"total":3,"pending":1,"failed":1,"skipped":1,"percent":33},"next_step":{"number":3,"text":"c"}}`},
		{`{"name":"c","step":3,"status":"done"}`,
			`{"revision":4,"step":3,"normalized":"status=\"completed\"","progress":{"total":3,"completed":1,"failed":1,"skipped":1,"percent":66}}`},
	} {
		out, err := tools["update_plan_step"].InvokableRun(ctx, tc.args)
		require.NoError(t, err)
		assert.JSONEq(t, tc.want, out)
	}
}
