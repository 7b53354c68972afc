package redisbackend

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
	"github.com/einoplan/plan/backends/redis/redistest"
	"github.com/einoplan/plan/plantest"
)

// ownServer starts a redis-server for one test, with the append-only file on when
// persistent and the extra configuration args. Without a binary the test skips, or fails
// under CI=true.
func ownServer(t *testing.T, persistent bool, args ...string) *redistest.Server {
	t.Helper()
	srv, err := startServer(t.TempDir(), persistent, args...)
	backendtest.SkipWithoutServer(t, "redis-server", err)
	t.Cleanup(srv.Stop)
	return srv
}

// snapshot reads every file under dir, recursively, through the Backend.
func snapshot(b *Backend, dir string) (map[string]string, error) {
	out := map[string]string{}
	infos, err := b.LsInfo(bg, &driver.LsInfoRequest{Path: dir})
	if err != nil {
		return nil, err
	}
	for _, fi := range infos {
		if fi.IsDir {
			sub, err := snapshot(b, fi.Path)
			if err != nil {
				return nil, err
			}
			maps.Copy(out, sub)
			continue
		}
		fc, err := b.Read(bg, &driver.ReadRequest{FilePath: fi.Path})
		if err != nil {
			return nil, err
		}
		out[fi.Path] = fc.Content
	}
	return out, nil
}

// TestRedisStoppedMidRun kills the Redis server in the middle of a real Eino agent run. The
// tool calls made while it is down answer backend_error, the run still ends normally with
// the model's answer, and after a restart on the same data directory the store holds exactly
// what was written before the server went away, and takes writes again.
func TestRedisStoppedMidRun(t *testing.T) {
	srv := ownServer(t, true)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true,
		MaxRetries: 1, DialTimeout: 300 * time.Millisecond})
	defer client.Close()
	b := mustNew(t, client)
	mw, err := plan.New(ctx, &plan.Config{Backend: b, AgentName: "planner"})
	if err != nil {
		t.Fatal(err)
	}

	var before map[string]string
	var snapErr error
	stopRedis := func(input []*schema.Message) *schema.Message {
		before, snapErr = snapshot(b, "/")
		srv.Kill()
		return plantest.CallTools(
			plantest.ToolCall{Name: plan.ToolWritePlan, Arguments: `{"name":"release","content":"# Release\n- [x] build\n- [ ] ship","last_known_revision":2}`},
			plantest.ToolCall{Name: plan.ToolSetPlanStatus, Arguments: `{"name":"release","status":"done"}`},
			plantest.ToolCall{Name: plan.ToolReadPlan, Arguments: `{"name":"release"}`},
			plantest.ToolCall{Name: plan.ToolListPlans, Arguments: `{}`},
			plantest.ToolCall{Name: plan.ToolGetPlanStatus, Arguments: `{"name":"notes"}`},
			plantest.ToolCall{Name: plan.ToolDeletePlan, Arguments: `{"name":"notes"}`},
			plantest.ToolCall{Name: plan.ToolWritePlan, Arguments: `{"name":"later","content":"- [ ] try again"}`},
		)(input)
	}
	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolWritePlan, `{"name":"release","content":"# Release\n- [ ] build\n- [ ] ship","last_known_revision":0}`),
		plantest.CallTool(plan.ToolSetPlanStatus, `{"name":"release","status":"in-progress","last_known_revision":1}`),
		plantest.CallTool(plan.ToolWritePlan, `{"name":"notes","content":"- [ ] remember the changelog"}`),
		stopRedis,
		plantest.Answer("Plan storage is unavailable; I will retry later."),
	)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "planner", Description: "plans", Instruction: "You plan.", Model: m,
		Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "plan the release")
	var results []string
	var final string
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			t.Fatalf("the run failed instead of reporting the outage to the model: %v", ev.Err)
		}
		if ev.Output == nil || ev.Output.MessageOutput == nil || ev.Output.MessageOutput.Message == nil {
			continue
		}
		msg := ev.Output.MessageOutput.Message
		switch {
		case msg.Role == schema.Tool:
			results = append(results, msg.Content)
		case msg.Role == schema.Assistant && len(msg.ToolCalls) == 0:
			final = msg.Content
		}
	}

	if snapErr != nil {
		t.Fatalf("snapshot before the stop: %v", snapErr)
	}
	if len(results) != 10 {
		t.Fatalf("%d tool results, want 10: %q", len(results), results)
	}
	for i, r := range results {
		want := ""
		if i >= 3 {
			want = string(plan.CodeBackendError)
		}
		if got := plantest.ErrorCode(t, r); got != want {
			t.Errorf("tool result %d = %s, want code %q", i, r, want)
		}
	}
	if final != "Plan storage is unavailable; I will retry later." {
		t.Fatalf("run ended with %q, want the model's final answer", final)
	}

	if err := srv.Restart(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	after, err := snapshot(mustNew(t, newClient(t, srv.Addr())), "/")
	if err != nil {
		t.Fatalf("snapshot after restart: %v", err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("after restart the store holds\n%q\nwant exactly what was written before the stop\n%q", after, before)
	}
	var files, history []string
	for _, p := range slices.Sorted(maps.Keys(after)) {
		if rest, ok := strings.CutPrefix(p, "/plans/.history/"); ok {
			history = append(history, rest[:strings.LastIndex(rest, ".")])
		} else {
			files = append(files, p)
		}
	}
	if !reflect.DeepEqual(files, []string{"/plans/notes.md", "/plans/release.md"}) {
		t.Fatalf("files after restart: %q", files)
	}
	// Each kept file is a revision a later one replaced: release's first, by its status
	// change; notes was only created.
	if !reflect.DeepEqual(history, []string{"release/1"}) {
		t.Fatalf("history after restart: %q", history)
	}
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	// go-redis keeps answering with the last dial error until its pool's background redial
	// (once a second) reaches the server again.
	got, err := s.Get(ctx, "release")
	for deadline := time.Now().Add(5 * time.Second); plan.CodeOf(err) == plan.CodeBackendError && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		got, err = s.Get(ctx, "release")
	}
	if err != nil || got.Revision != 2 || got.Status != "in-progress" || got.Content != "# Release\n- [ ] build\n- [ ] ship" {
		t.Fatalf("release after restart = %+v, %v", got, err)
	}
	// The same Backend value, on the same client, works again once Redis is back.
	if _, err := s.Put(ctx, plan.Update{Name: "release", Status: "done", IfRevision: ptr(int64(2))}); err != nil {
		t.Fatalf("write after restart: %v", err)
	}
}
