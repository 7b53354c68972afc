//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/acp"
)

// acpSchemaFile is the ACP v2 schema as the @agentclientprotocol/sdk npm package publishes it.
const acpSchemaFile = "testdata/acp-sdk-2.4.0/schema-v2.json"

// acpSchema resolves the published schema, rooted at definition def ("" for the schema's own
// root: any ACP JSON-RPC message).
func acpSchema(t *testing.T, def string) *jsonschema.Resolved {
	t.Helper()
	raw, err := os.ReadFile(acpSchemaFile)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	if def != "" {
		doc = map[string]any{"$schema": doc["$schema"], "$ref": "#/$defs/" + def, "$defs": doc["$defs"]}
	}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	var s jsonschema.Schema
	require.NoError(t, json.Unmarshal(b, &s))
	rs, err := s.Resolve(nil)
	require.NoError(t, err)
	return rs
}

func validateJSON(t *testing.T, rs *jsonschema.Resolved, raw []byte) error {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(raw, &v), string(raw))
	return rs.Validate(v)
}

// planInEveryState writes plan ship in dir with steps pending, held in progress, completed
// with evidence, skipped, failed and awaiting review.
func planInEveryState(t *testing.T, store *plan.Store) *plan.Plan {
	t.Helper()
	ctx := context.Background()
	body := "- [ ] build\n- [ ] test\n- [ ] docs\n- [ ] lint\n- [ ] check (review)\n- [ ] release\n"
	_, err := store.Put(ctx, plan.Update{Name: "ship", Title: "Ship 2.0", Content: &body})
	require.NoError(t, err)
	for _, m := range []plan.StepMove{
		{Step: 1, State: plan.StepInProgress}, {Step: 1, State: plan.StepCompleted, Evidence: "go build passed"},
		{Step: 2, State: plan.StepInProgress}, {Step: 3, State: plan.StepSkipped}, {Step: 4, State: plan.StepFailed},
		{Step: 5, State: plan.StepInProgress}, {Step: 5, State: plan.StepCompleted},
	} {
		m.Name, m.By = "ship", "coder"
		_, _, err := store.MoveStep(ctx, m)
		require.NoError(t, err, "step %d", m.Step)
	}
	p, err := store.Get(ctx, "ship")
	require.NoError(t, err)
	return p
}

// acp.PlanUpdate of a plan in every step state is a SessionUpdate as the published ACP v2
// schema defines it, and so is each line planctl watch -acp prints, as a whole JSON-RPC
// message; the schema check itself refuses an entry without its required priority.
func TestACPUpdatesMatchThePublishedV2Schema(t *testing.T) {
	update := acpSchema(t, "SessionUpdate")
	message, params := acpSchema(t, ""), acpSchema(t, "UpdateSessionNotification")
	checkLine := func(line []byte) {
		t.Helper()
		require.NoError(t, validateJSON(t, message, line), string(line))
		var n struct{ Params json.RawMessage }
		require.NoError(t, json.Unmarshal(line, &n))
		require.NoError(t, validateJSON(t, params, n.Params), string(line))
	}

	dir := filepath.Join(t.TempDir(), "plans")
	p := planInEveryState(t, agentStore(t, dir, "host"))
	raw, err := acp.PlanUpdate(p)
	require.NoError(t, err)
	require.NoError(t, validateJSON(t, update, raw), string(raw))
	for _, status := range []string{`"completed"`, `"in_progress"`, `"cancelled"`, `"_failed"`, `"pending"`} {
		assert.Contains(t, string(raw), `"status":`+status)
	}
	empty, err := acp.PlanUpdate(&plan.Plan{Name: "empty"})
	require.NoError(t, err)
	require.NoError(t, validateJSON(t, update, empty))
	bad := []byte(`{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"x","entries":[{"content":"a","status":"pending"}]}}`)
	require.Error(t, validateJSON(t, update, bad), "the schema check refuses an entry without priority")
	require.Error(t, validateJSON(t, params, []byte(`{"update":`+string(raw)+`}`)), "and a notification without its session")

	bin := planctlBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-dir", dir, "watch", "-acp", "sess_1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { cancel(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 1<<20)
	require.True(t, lines.Scan(), "the plan as it is")
	checkLine(lines.Bytes())
	assert.Contains(t, lines.Text(), `"method":"session/update","params":{"sessionId":"sess_1"`)

	_, _, err = agentStore(t, dir, "host").MoveStep(context.Background(), plan.StepMove{Name: "ship", Step: 6, State: plan.StepInProgress, By: "w2"})
	require.NoError(t, err)
	require.True(t, lines.Scan(), "one update for the change")
	checkLine(lines.Bytes())
	var n struct {
		Params struct {
			Update struct {
				Plan struct {
					Entries []struct {
						Status string                    `json:"status"`
						Meta   map[string]map[string]any `json:"_meta"`
					} `json:"entries"`
				} `json:"plan"`
			} `json:"update"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(lines.Bytes(), &n))
	last := n.Params.Update.Plan.Entries[5]
	assert.Equal(t, "in_progress", last.Status)
	assert.Equal(t, "w2", last.Meta[acp.MetaKey]["holder"])
}
