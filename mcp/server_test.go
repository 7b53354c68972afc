package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/mcp"
)

// connect mounts srv on an in-memory transport, as a host mounts it on its own, and
// connects a client called name.
func connect(t *testing.T, srv *mcp.Server, name string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, opts).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// storeWith returns a Store in memory holding one plan, name, with body.
func storeWith(t *testing.T, name, body string) *plan.Store {
	t.Helper()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	_, err = store.Put(context.Background(), plan.Update{Name: name, Content: &body})
	require.NoError(t, err)
	return store
}

func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &out))
	return out, res.IsError
}

// One server mounted on a host's transport serves many clients at once: each takes steps
// under its own name, concurrently, and none takes a step twice; a subscriber hears them.
func TestNewServerServesConcurrentClientsOnAHostsTransport(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := ""
	for i := 1; i <= 8; i++ {
		body += fmt.Sprintf("- [ ] step %d\n", i)
	}
	store := storeWith(t, "work", body)
	srv, err := mcp.NewServer(ctx, mcp.Options{Store: store, Language: adk.LanguageEnglish})
	require.NoError(t, err)

	updated := make(chan string, 64)
	watcher := connect(t, srv, "watcher", &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
		updated <- r.Params.URI
	}})
	require.NoError(t, watcher.Subscribe(ctx, &sdk.SubscribeParams{URI: mcp.PlanURI("work")}))

	var wg sync.WaitGroup
	taken := make(chan string, 8)
	for i := range 4 {
		cs := connect(t, srv, fmt.Sprintf("w%d", i), nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2 {
				out, isError := call(t, cs, "update_plan_step", map[string]any{"name": "work", "status": "in_progress"})
				if !isError {
					taken <- fmt.Sprintf("%v@w%d", out["step"], i) // the caller's own hold: not in the result
				}
			}
		}()
	}
	wg.Wait()
	close(taken)
	steps := map[string]bool{}
	for s := range taken {
		steps[s] = true
	}
	p, err := store.Get(ctx, "work")
	require.NoError(t, err)
	holders := map[string]int{}
	for _, s := range plan.ParseSteps(p.Content) {
		if s.Holder != "" {
			holders[s.Holder]++
			assert.True(t, steps[fmt.Sprintf("%d@%s", s.Number, s.Holder)], "step %d", s.Number)
		}
	}
	assert.Equal(t, map[string]int{"w0": 2, "w1": 2, "w2": 2, "w3": 2}, holders)
	select {
	case uri := <-updated:
		assert.Equal(t, "plan://work", uri)
	case <-time.After(10 * time.Second):
		t.Fatal("the subscriber heard nothing")
	}
}

func TestNewServerRefusesWhatCannotServe(t *testing.T) {
	ctx := context.Background()
	_, err := mcp.NewServer(ctx, mcp.Options{})
	assert.Error(t, err)
	store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	_, err = mcp.NewServer(ctx, mcp.Options{Store: store, Language: adk.Language(7)})
	assert.Error(t, err)
	for _, bad := range []string{" ", "a\nb", string([]byte{0xff}), string(make([]byte, 65))} {
		_, err = mcp.NewServer(ctx, mcp.Options{Store: store, As: bad})
		assert.Error(t, err, "%q", bad)
	}
	assert.NoError(t, mcp.CheckName("Claude Code (work)"), "spaces and parentheses are escaped in the holder tag")
}

// The resource of a plan is its header as a person reads it, then its body byte for byte.
func TestMarkdownShowsTheHeaderThenTheBody(t *testing.T) {
	p := &plan.Plan{Name: "ship", Title: "Ship \"2.0\"", Status: "doing", Revision: 4, Content: "- [~] build (@w1)\n- [ ] test\n",
		Approval: &api.Approval{Revision: 3, By: "dana"}, Waiting: &api.Waiting{Revision: 4, Agent: "lead"}}
	md := mcp.Markdown(p)
	assert.Contains(t, md, "title: \"Ship \\\"2.0\\\"\"\n")
	assert.Contains(t, md, "revision: 4\n")
	assert.Contains(t, md, "approved: \"revision 3 by dana")
	assert.Contains(t, md, "waiting: \"revision 4, asked by lead")
	assert.Contains(t, md, "held: \"step 1 by w1\"\n")
	assert.Contains(t, md, "---\n- [~] build (@w1)\n- [ ] test\n")
}

// Under 2026-07-28 the question comes back as an input-required result, and the call that
// brings the answer applies it only to the plan as the person was shown it: an answer to a
// plan changed in between approves nothing and the plan waits; an answer to the plan as it
// is is the same sealed approval as any other, naming the person and the client.
func TestAnAnswerApprovesOnlyThePlanThePersonWasShown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := storeWith(t, "release", "- [ ] build\n- [ ] ship\n")
	srv, err := mcp.NewServer(ctx, mcp.Options{Store: store, Language: adk.LanguageEnglish, RequireApproval: true, AskClients: true, Person: "dana"})
	require.NoError(t, err)
	cs := connect(t, srv, "alice", &sdk.ClientOptions{
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return nil, fmt.Errorf("answered by the test")
		},
		MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
	})
	require.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)
	params := &sdk.CallToolParams{Name: "request_plan_approval", Arguments: map[string]any{"name": "release"}}
	ask := func() *sdk.CallToolResult {
		res, err := cs.CallTool(ctx, params)
		require.NoError(t, err)
		require.True(t, res.NeedsInput(), "the question comes back as an input-required result")
		q, ok := res.InputRequests["approval"].(*sdk.ElicitParams)
		require.True(t, ok)
		assert.Contains(t, q.Message, "- [ ] build")
		return res
	}
	answer := func(asked *sdk.CallToolResult) map[string]any {
		retry := *params
		retry.InputResponses = sdk.InputResponseMap{"approval": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}
		retry.RequestState = asked.RequestState
		res, err := cs.CallTool(ctx, &retry)
		require.NoError(t, err)
		require.False(t, res.NeedsInput(), "a call that brings an answer is not asked again")
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &out))
		return out
	}

	asked := ask()
	changed := "- [ ] build\n- [ ] ship\n- [ ] tell everyone\n"
	_, err = store.Put(ctx, plan.Update{Name: "release", Content: &changed})
	require.NoError(t, err)
	assert.Equal(t, false, answer(asked)["approved"])
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.Nil(t, p.Approval)

	asked = ask()
	assert.Equal(t, true, answer(asked)["approved"])
	p, err = store.Get(ctx, "release")
	require.NoError(t, err)
	require.NotNil(t, p.Approval)
	assert.Equal(t, "dana via MCP client alice", p.Approval.By)
	assert.Equal(t, changed, p.Content)
}
