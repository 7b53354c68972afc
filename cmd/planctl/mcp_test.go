//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// The tests of planctl mcp run the built planctl as MCP clients start it, and talk to it
// with the MCP Go SDK's own client.

// mcpSession starts planctl args (which end with "mcp" and its flags) and connects to it as
// a client called name.
func mcpSession(t *testing.T, name string, opts *sdk.ClientOptions, session *sdk.ClientSessionOptions, args ...string) *sdk.ClientSession {
	t.Helper()
	bin := planctlBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1.0"}, opts)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(bin, args...)}, session)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a plan tool and returns its text and whether it is an error result.
func callTool(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	text, ok := res.Content[0].(*sdk.TextContent)
	require.True(t, ok, "a text result")
	return text.Text, res.IsError
}

// toolOK calls a tool that must succeed and decodes its JSON result.
func toolOK(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	text, isError := callTool(t, cs, tool, args)
	require.False(t, isError, text)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &out), text)
	return out
}

// toolError calls a tool that must fail and returns the error object's code and message.
func toolError(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (code, message string) {
	t.Helper()
	text, isError := callTool(t, cs, tool, args)
	require.True(t, isError, text)
	var out struct {
		Error struct{ Code, Message string }
	}
	require.NoError(t, json.Unmarshal([]byte(text), &out), text)
	return out.Error.Code, out.Error.Message
}

// Two clients of different names share one plan through two planctl mcp processes: each
// holds the steps it takes under its own name, the other gets step_held, a write naming a
// revision the plan left gets revision_conflict, a bad plan name gets invalid_argument, and
// history names who did what. A second session of one name shares that name's holds.
func TestMCPClientsOfTwoNamesShareOnePlan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	alice := mcpSession(t, "alice", nil, nil, "-dir", dir, "mcp", "-lang", "en")
	bob := mcpSession(t, "bob", nil, nil, "-dir", dir, "mcp", "-lang", "en")

	w := toolOK(t, alice, "write_plan", map[string]any{"name": "ship", "content": "- [ ] build\n- [ ] test\n- [ ] docs\n", "last_known_revision": 0})
	require.EqualValues(t, 1, w["revision"])
	r := toolOK(t, bob, "read_plan", map[string]any{"name": "ship"})
	require.EqualValues(t, 1, r["revision"])

	took := toolOK(t, alice, "update_plan_step", map[string]any{"name": "ship", "step": 1, "status": "in_progress"})
	assert.NotContains(t, took, "holder", "a result does not repeat the caller's own hold")
	code, msg := toolError(t, bob, "update_plan_step", map[string]any{"name": "ship", "step": 1, "status": "completed"})
	assert.Equal(t, "step_held", code)
	assert.Contains(t, msg, "alice")
	next := toolOK(t, bob, "update_plan_step", map[string]any{"name": "ship", "status": "in_progress"})
	assert.EqualValues(t, 2, next["step"])

	code, _ = toolError(t, bob, "write_plan", map[string]any{"name": "ship", "content": "- [ ] build it all\n- [ ] test\n", "last_known_revision": 1})
	assert.Equal(t, "revision_conflict", code)
	code, msg = toolError(t, bob, "write_plan", map[string]any{"name": "Ship It", "content": "- [ ] a\n"})
	assert.Equal(t, "invalid_argument", code)
	assert.Contains(t, msg, "lowercase")
	code, _ = toolError(t, bob, "read_plan", map[string]any{"name": "nope"})
	assert.Equal(t, "not_found", code)

	again := mcpSession(t, "alice", nil, nil, "-dir", dir, "mcp")
	toolOK(t, again, "update_plan_step", map[string]any{"name": "ship", "step": 1, "status": "completed"})

	p, err := agentStore(t, dir, "host").Get(context.Background(), "ship")
	require.NoError(t, err)
	steps := plan.ParseSteps(p.Content)
	assert.Equal(t, plan.StepCompleted, steps[0].State)
	assert.Equal(t, "bob", steps[1].Holder)
	history, err := agentStore(t, dir, "host").History(context.Background(), "ship")
	require.NoError(t, err)
	var actors []string
	for _, h := range history {
		actors = append(actors, h.Author)
		assert.True(t, h.ByAgent || h.Revision == 1, "revision %d was an agent's", h.Revision)
	}
	assert.Subset(t, actors, []string{"alice", "bob"})
}

// -as names who every client acts as, whatever name the client sends; a client with no
// name and no -as gets a protocol error saying to use -as, and nothing is written.
func TestMCPIdentityComesFromTheConnection(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	ops := mcpSession(t, "alice", nil, nil, "-dir", dir, "mcp", "-as", "ops")
	toolOK(t, ops, "write_plan", map[string]any{"name": "ship", "content": "- [ ] build\n"})
	toolOK(t, ops, "update_plan_step", map[string]any{"name": "ship", "status": "in_progress"})
	p, err := agentStore(t, dir, "host").Get(context.Background(), "ship")
	require.NoError(t, err)
	assert.Equal(t, "ops", plan.ParseSteps(p.Content)[0].Holder)

	nobody := mcpSession(t, "", nil, nil, "-dir", dir, "mcp")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = nobody.CallTool(ctx, &sdk.CallToolParams{Name: "write_plan", Arguments: map[string]any{"name": "other", "content": "- [ ] a\n"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-as NAME")
	assert.Equal(t, exitNotFound, planctl(t, "-dir", dir, "show", "other").code)

	r := planctl(t, "-dir", dir, "mcp", "-as", "")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "-as: a client's name is empty")
	r = planctl(t, "-dir", dir, "mcp", "-lang", "fr")
	assert.Equal(t, exitUsage, r.code)
	r = planctl(t, "-dir", dir, "list", "-as", "x")
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "-as applies to mcp only")
}

// The tools an MCP client lists are the Eino middleware's: the same names and
// descriptions, in the language -lang picks, and the instruction is the plan instruction.
func TestMCPServesTheEinoToolsInEitherLanguage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	ctx := context.Background()
	en := mcpSession(t, "alice", nil, nil, "-dir", dir, "mcp", "-lang", "en")
	zh := mcpSession(t, "alice", nil, nil, "-dir", dir, "mcp", "-lang", "zh", "-approval")
	names := func(cs *sdk.ClientSession) map[string]string {
		res, err := cs.ListTools(ctx, nil)
		require.NoError(t, err)
		out := map[string]string{}
		for _, tl := range res.Tools {
			out[tl.Name] = tl.Description
		}
		return out
	}
	enTools, zhTools := names(en), names(zh)
	for _, n := range []string{plan.ToolWritePlan, plan.ToolReadPlan, plan.ToolListPlans, plan.ToolDeletePlan, plan.ToolSetPlanStatus,
		plan.ToolGetPlanStatus, plan.ToolUpdatePlanStep, plan.ToolPlanTemplate} {
		require.Contains(t, enTools, n)
		require.Contains(t, zhTools, n)
		assert.True(t, strings.IndexFunc(zhTools[n], func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0, "%s: %s", n, zhTools[n])
	}
	assert.NotContains(t, enTools, plan.ToolRequestPlanApproval, "offered in plan mode only")
	assert.Contains(t, zhTools, plan.ToolRequestPlanApproval)
	assert.NotContains(t, enTools, plan.ToolExportPlanToFile, "no workspace, no file tools")
	assert.Contains(t, en.InitializeResult().Instructions, "## Plans")
}

// A subscribed client hears another client's change, and a change by any other process,
// within seconds; every client hears the list change when a plan is created. The resource
// is the plan as a person reads it.
func TestMCPSubscribedClientHearsEveryChange(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plans")
	updated := make(chan string, 16)
	listed := make(chan struct{}, 16)
	opts := &sdk.ClientOptions{
		ResourceUpdatedHandler:     func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { listed <- struct{}{} },
	}
	bob := mcpSession(t, "bob", nil, nil, "-dir", dir, "mcp")
	toolOK(t, bob, "write_plan", map[string]any{"name": "ship", "content": "- [ ] build\n- [ ] test\n"})
	alice := mcpSession(t, "alice", opts, nil, "-dir", dir, "mcp")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, alice.Subscribe(ctx, &sdk.SubscribeParams{URI: "plan://ship"}))

	toolOK(t, bob, "update_plan_step", map[string]any{"name": "ship", "step": 1, "status": "in_progress"})
	waitForURI(t, updated, "plan://ship")
	res, err := alice.ReadResource(ctx, &sdk.ReadResourceParams{URI: "plan://ship"})
	require.NoError(t, err)
	text := res.Contents[0].Text
	assert.Contains(t, text, "revision: 2\n")
	assert.Contains(t, text, `held: "step 1 by bob"`)
	assert.Contains(t, text, "- [~] build (@bob)\n")

	_, err = agentStore(t, dir, "host").SetStatus(plan.WithActor(ctx, "carol"), "ship", "shipping", nil)
	require.NoError(t, err)
	waitForURI(t, updated, "plan://ship")

	toolOK(t, bob, "write_plan", map[string]any{"name": "docs", "content": "- [ ] write\n"})
	select {
	case <-listed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/resources/list_changed within 10s")
	}
	list, err := alice.ListResources(ctx, nil)
	require.NoError(t, err)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	assert.ElementsMatch(t, []string{"plan://docs", "plan://ship"}, uris)
	_, err = alice.ReadResource(ctx, &sdk.ReadResourceParams{URI: "plan://missing"})
	assert.Error(t, err)
}

// waitForURI waits up to 10 seconds for uri on ch.
func waitForURI(t *testing.T, ch <-chan string, uri string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-ch:
			if got == uri {
				return
			}
		case <-deadline:
			t.Fatalf("no notifications/resources/updated for %s within 10s", uri)
		}
	}
}
