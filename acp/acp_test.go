package acp_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/acp"
	"github.com/stretchr/testify/require"
)

// planInEveryState writes a plan whose steps are pending, held in progress, completed with
// evidence, skipped and failed.
func planInEveryState(t *testing.T, store *plan.Store) *plan.Plan {
	t.Helper()
	ctx := context.Background()
	body := "- [ ] build\n- [ ] test\n- [ ] docs\n- [ ] lint\n- [ ] release\n"
	_, err := store.Put(ctx, plan.Update{Name: "ship", Title: "Ship it", Content: &body})
	require.NoError(t, err)
	move := func(step int, state plan.StepState, evidence string) {
		_, _, err := store.MoveStep(ctx, plan.StepMove{Name: "ship", Step: step, State: state, By: "coder", Evidence: evidence})
		require.NoError(t, err)
	}
	move(1, plan.StepInProgress, "")
	move(1, plan.StepCompleted, "go build ./... passed")
	move(2, plan.StepInProgress, "")
	move(3, plan.StepSkipped, "")
	move(4, plan.StepFailed, "")
	p, err := store.Get(ctx, "ship")
	require.NoError(t, err)
	return p
}

func newStore(t *testing.T) *plan.Store {
	t.Helper()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	return s
}

type message struct {
	SessionUpdate string `json:"sessionUpdate"`
	Plan          struct {
		Type    string `json:"type"`
		PlanID  string `json:"planId"`
		Entries []struct {
			Content  string                    `json:"content"`
			Priority string                    `json:"priority"`
			Status   string                    `json:"status"`
			Meta     map[string]map[string]any `json:"_meta"`
		} `json:"entries"`
		Meta map[string]map[string]any `json:"_meta"`
	} `json:"plan"`
}

func TestPlanUpdateMapsEveryStepStateInOrder(t *testing.T) {
	p := planInEveryState(t, newStore(t))
	raw, err := acp.PlanUpdate(p)
	require.NoError(t, err)
	var m message
	require.NoError(t, json.Unmarshal(raw, &m))
	require.Equal(t, "plan_update", m.SessionUpdate)
	require.Equal(t, "items", m.Plan.Type)
	require.Equal(t, "ship", m.Plan.PlanID)
	var statuses, contents []string
	for _, e := range m.Plan.Entries {
		statuses = append(statuses, e.Status)
		contents = append(contents, e.Content)
		require.Equal(t, acp.Priority, e.Priority)
	}
	require.Equal(t, []string{"completed", "in_progress", "cancelled", "_failed", "pending"}, statuses)
	require.Equal(t, "test", contents[1], "the holder's tag is not part of the entry's text")
	require.Equal(t, "coder", m.Plan.Entries[1].Meta[acp.MetaKey]["holder"])
	require.Equal(t, "go build ./... passed", m.Plan.Entries[0].Meta[acp.MetaKey]["evidence"])
	require.EqualValues(t, 5, m.Plan.Entries[4].Meta[acp.MetaKey]["step"])
	require.EqualValues(t, p.Revision, m.Plan.Meta[acp.MetaKey]["revision"])
	require.Equal(t, "Ship it", m.Plan.Meta[acp.MetaKey]["title"])
}

func TestPlanUpdateOfAPlanWithoutStepsHasNoEntries(t *testing.T) {
	raw, err := acp.PlanUpdate(&plan.Plan{Name: "notes", Revision: 2, Content: "just prose\n"})
	require.NoError(t, err)
	require.Contains(t, string(raw), `"entries":[]`)
	_, err = acp.PlanUpdate(nil)
	require.Error(t, err)
}

func TestPlanUpdateIsValidJSONWhateverTheStepText(t *testing.T) {
	raw, err := acp.PlanUpdate(&plan.Plan{Name: "odd", Content: "- [ ] a <b> & \"c\" \xff\n"})
	require.NoError(t, err)
	require.True(t, json.Valid(raw))
	require.Contains(t, string(raw), `a <b> & \"c\" \ufffd`)
}

func TestNotificationIsASessionUpdateForTheSession(t *testing.T) {
	u, err := acp.PlanUpdate(&plan.Plan{Name: "p", Content: "- [ ] one\n"})
	require.NoError(t, err)
	n, err := acp.Notification("sess_1", u)
	require.NoError(t, err)
	var m struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		ID      any    `json:"id"`
		Params  struct {
			SessionID string          `json:"sessionId"`
			Update    json.RawMessage `json:"update"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(n, &m))
	require.Equal(t, "2.0", m.JSONRPC)
	require.Equal(t, "session/update", m.Method)
	require.Nil(t, m.ID, "a notification has no id")
	require.Equal(t, "sess_1", m.Params.SessionID)
	require.JSONEq(t, string(u), string(m.Params.Update))
	_, err = acp.Notification("s", []byte("{"))
	require.Error(t, err)
}

func TestFollowSendsThePlansThenOneUpdatePerChange(t *testing.T) {
	backend := plan.NewMemoryBackend()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := "- [ ] one\n- [ ] two\n"
	_, err = store.Put(ctx, plan.Update{Name: "a", Content: &body})
	require.NoError(t, err)

	got := make(chan message, 16)
	done := make(chan error, 1)
	go func() {
		done <- acp.Follow(ctx, store, func(u []byte) error {
			var m message
			if err := json.Unmarshal(u, &m); err != nil {
				return err
			}
			got <- m
			return nil
		})
	}()
	next := func() message {
		select {
		case m := <-got:
			return m
		case <-time.After(10 * time.Second):
			t.Fatal("no update")
		}
		return message{}
	}
	require.Equal(t, "a", next().Plan.PlanID)

	// Another Store on the same storage, as another process would have.
	other, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, _, err = other.MoveStep(plan.WithActor(ctx, "w1"), plan.StepMove{Name: "a", Step: 1, State: plan.StepInProgress, By: "w1"})
	require.NoError(t, err)
	m := next()
	require.Equal(t, "a", m.Plan.PlanID)
	require.Equal(t, "in_progress", m.Plan.Entries[0].Status)
	require.Equal(t, "w1", m.Plan.Entries[0].Meta[acp.MetaKey]["holder"])

	_, _, err = other.MoveStep(ctx, plan.StepMove{Name: "a", Step: 1, State: plan.StepCompleted, By: "w1"})
	require.NoError(t, err)
	m = next()
	require.Equal(t, "completed", m.Plan.Entries[0].Status)
	require.EqualValues(t, 3, m.Plan.Meta[acp.MetaKey]["revision"])

	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
}
