package plan_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// Every change a tool makes is reported to the host's OnChange, and the run's events carry the
// same changes; a refused call reports nothing.
func TestChangesReportedToHostAndAsEvents(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var hostChanges []plan.Change
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), OnChange: func(_ context.Context, c plan.Change) {
		mu.Lock()
		hostChanges = append(hostChanges, c)
		mu.Unlock()
	}})
	require.NoError(t, err)
	m := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"p","content":"- [ ] a\n- [ ] b\n"}`),
		plantest.CallTool("write_plan", `{"name":"p","content":"x","last_known_revision":9}`),
		plantest.CallTool("set_plan_status", `{"name":"p","status":"active"}`),
		plantest.CallTool("update_plan_step", `{"name":"p","step":1,"status":"completed"}`),
		plantest.CallTool("update_plan_step", `{"name":"p","step":1,"status":"failed"}`),
		plantest.CallTool("delete_plan", `{"name":"p"}`),
	)
	events := runAgent(t, m, mw)
	var eventChanges []plan.Change
	for _, ev := range events {
		if ev.Output != nil {
			if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok {
				eventChanges = append(eventChanges, c)
			}
		}
	}
	want := []struct {
		action   plan.Action
		revision int64
	}{{plan.ActionWrite, 1}, {plan.ActionStatus, 2}, {plan.ActionStep, 3}, {plan.ActionDelete, 3}}
	require.Len(t, hostChanges, len(want), "one change per successful mutation, none for failed ones")
	require.Equal(t, hostChanges, eventChanges, "the run's events carry the same changes")
	for i, w := range want {
		assert.Equal(t, "p", hostChanges[i].Name)
		assert.Equal(t, w.action, hostChanges[i].Action)
		assert.Equal(t, w.revision, hostChanges[i].Revision)
	}
	assert.True(t, hostChanges[0].Created)
	assert.Equal(t, 2, hostChanges[0].Progress.Total)
	assert.Equal(t, 1, hostChanges[2].Progress.Completed)
}

// A call whose context has ended answers canceled as a result, writes nothing and reports no
// change.
func TestCanceledContextWritesNothing(t *testing.T) {
	backend := plan.NewMemoryBackend()
	changes := 0
	mw, err := plan.New(context.Background(), &plan.Config{Backend: backend, OnChange: func(context.Context, plan.Change) { changes++ }})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	cancel()
	out, err := tools["write_plan"].InvokableRun(ctx, `{"name":"c","content":"x"}`)
	require.NoError(t, err, "a canceled call is a result, not a Go error")
	assert.Equal(t, "canceled", errorCode(t, out))
	assert.Zero(t, changes)
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = store.Get(context.Background(), "c")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
}
