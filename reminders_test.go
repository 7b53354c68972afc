package plan_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// lastInput is the last message a model call got.
func lastInput(c plantest.Call) *schema.Message {
	if len(c.Input) == 0 {
		return nil
	}
	return c.Input[len(c.Input)-1]
}

func isReminder(msg *schema.Message) bool {
	return msg != nil && msg.Role == schema.User && strings.Contains(msg.Content, "changed")
}

// After another agent changes a plan the run works on, the run's next model call gets one
// short note about it, appended after the history (the instruction unchanged), and the
// calls after that get none while nothing else changes.
func TestAReminderFollowsAnotherAgentsChange(t *testing.T) {
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	body := leaseBody
	_, err = s.Put(context.Background(), plan.Update{Name: "lease", Content: &body})
	require.NoError(t, err)

	other := func([]*schema.Message) *schema.Message {
		w2 := plantest.NewScriptedModel(
			plantest.CallTool("update_plan_step", `{"name":"lease","status":"in_progress"}`),
			plantest.CallTool("update_plan_step", `{"name":"lease","step":2,"status":"completed"}`),
			plantest.Answer("done"),
		)
		leaseRun(context.Background(), t, "w2", w2, s)
		return schema.AssistantMessage("", []schema.ToolCall{{ID: "c2", Type: "function",
			Function: schema.FunctionCall{Name: "update_plan_step", Arguments: `{"name":"lease","step":1,"status":"completed"}`}}})
	}
	w1 := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"lease","status":"in_progress"}`),
		other,
		plantest.CallTool("get_plan_status", `{"name":"lease"}`),
		plantest.Answer("done"),
	)
	leaseRun(context.Background(), t, "w1", w1, s)
	calls := w1.Calls()
	require.Len(t, calls, 4)
	assert.False(t, isReminder(lastInput(calls[0])))
	assert.False(t, isReminder(lastInput(calls[1])), "nothing changed but its own move")
	note := lastInput(calls[2])
	require.True(t, isReminder(note), "%+v", note)
	assert.Contains(t, note.Content, "lease r2→r5")
	assert.Contains(t, note.Content, "w2")
	assert.Contains(t, note.Content, "#2 completed")
	assert.Contains(t, note.Content, `#3 "three (after 1)"`, "the next ready step")
	assert.NotContains(t, note.Content, "- [", "never the plan")
	assert.False(t, isReminder(lastInput(calls[3])), "told once")
	assert.Equal(t, calls[0].Input[0].Content, calls[2].Input[0].Content, "the instruction is not rewritten")
	for _, msg := range calls[3].Input {
		assert.False(t, isReminder(msg), "a reminder is not kept in the history")
	}
}

// A run whose plans nobody else changes gets no reminder, and ReminderEvery < 0 turns them
// off.
func TestNoReminderWithoutOthersChanges(t *testing.T) {
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	w1 := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"solo","content":"- [ ] a\n- [ ] b (after 1)\n"}`),
		plantest.CallTool("update_plan_step", `{"name":"solo","status":"in_progress"}`),
		plantest.CallTool("update_plan_step", `{"name":"solo","step":1,"status":"completed"}`),
		plantest.CallTool("read_plan", `{"name":"solo"}`),
		plantest.Answer("done"),
	)
	leaseRun(context.Background(), t, "w1", w1, s)
	for i, c := range w1.Calls() {
		assert.False(t, isReminder(lastInput(c)), "call %d", i)
	}
}

// Reminders go out at most once every ReminderEvery model calls: a change made right after
// one is told with the next, not lost.
func TestRemindersAreSpacedByReminderEvery(t *testing.T) {
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	body := leaseBody
	_, err = s.Put(context.Background(), plan.Update{Name: "lease", Content: &body})
	require.NoError(t, err)
	mw, err := plan.New(context.Background(), &plan.Config{Store: s, AgentName: "w1", ReminderEvery: 3})
	require.NoError(t, err)
	change := func(step int, to plan.StepState) plantest.Turn {
		return func(in []*schema.Message) *schema.Message {
			_, _, err := s.MoveStep(context.Background(), plan.StepMove{Name: "lease", Step: step, State: to, By: "w2"})
			require.NoError(t, err)
			return plantest.CallTool("get_plan_status", `{"name":"lease"}`)(in)
		}
	}
	status := plantest.CallTool("get_plan_status", `{"name":"lease"}`)
	m := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"lease","step":1,"status":"in_progress"}`),
		change(2, plan.StepInProgress),
		change(2, plan.StepCompleted),
		status, status, status,
		plantest.Answer("done"),
	)
	graphRun(t, m, mw)
	calls := m.Calls()
	require.Len(t, calls, 7)
	var got []int
	for i, c := range calls {
		if isReminder(lastInput(c)) {
			got = append(got, i)
		}
	}
	assert.Equal(t, []int{2, 5}, got, "the first change at call 3, the second three calls later")
	assert.Contains(t, lastInput(calls[2]).Content, "#2 in_progress (@w2)")
	assert.Contains(t, lastInput(calls[5]).Content, "#2 completed")
}
