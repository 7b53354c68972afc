package redisbackend

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk"
	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// busyScript keeps the server busy for ARGV[1] milliseconds, as a slow command of another
// client would: commands of every other client wait until it ends.
var busyScript = redis.NewScript(`
local t = redis.call('TIME')
local stop = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000 + tonumber(ARGV[1])
repeat
  t = redis.call('TIME')
until tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000 >= stop
return 1
`)

// busyBeforeFirstSwap makes the server busy for busy from another client just before its
// first compare-and-swap (plain or keeping) goes out, so that call times out on the client while Redis still
// runs it afterwards. Its conditional writes go through the embedded Backend, whose client
// has the short timeout; reads go through reads, whose client waits, so only the write's
// outcome is in doubt however slow the machine running the test is.
type busyBeforeFirstSwap struct {
	*Backend
	reads *Backend
	other *redis.Client
	busy  time.Duration
	once  atomic.Bool
	wg    sync.WaitGroup
}

func (s *busyBeforeFirstSwap) Read(ctx context.Context, req *driver.ReadRequest) (*driver.FileContent, error) {
	return s.reads.Read(ctx, req)
}

func (s *busyBeforeFirstSwap) ReadAtMost(ctx context.Context, p string, n int64) (string, error) {
	return s.reads.ReadAtMost(ctx, p, n)
}

func (s *busyBeforeFirstSwap) LsInfo(ctx context.Context, req *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return s.reads.LsInfo(ctx, req)
}

func (s *busyBeforeFirstSwap) CompareAndSwap(ctx context.Context, req *driver.WriteRequest, old *string) (bool, error) {
	s.busyOnce()
	return s.Backend.CompareAndSwap(ctx, req, old)
}

// CompareAndSwapKeeping is the swap the Store makes for a change of an existing plan; it
// goes through the busy server as CompareAndSwap does.
func (s *busyBeforeFirstSwap) CompareAndSwapKeeping(ctx context.Context, req *driver.WriteRequest, old *string, keep string) (bool, error) {
	s.busyOnce()
	return s.Backend.CompareAndSwapKeeping(ctx, req, old, keep)
}

func (s *busyBeforeFirstSwap) KeepsFor(v any) bool { return v == any(s) }

// busyOnce, on the first swap, starts the busy script from another client and returns
// once it runs.
func (s *busyBeforeFirstSwap) busyOnce() {
	if s.once.CompareAndSwap(false, true) {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			busyScript.Run(context.Background(), s.other, nil, s.busy.Milliseconds())
		}()
		time.Sleep(30 * time.Millisecond) // the busy script is running
	}
}

// TestTimeoutOnBusyServerResolvesTheOutcome: with a 150 ms client timeout and the server
// busy for 400 ms, update_plan_step used to answer backend_error "try again later" although
// its write landed, and the retry the model then made got illegal_transition, with no
// change reported. Now the tool call ends in success with exactly one Change, or in
// unknown_outcome telling the model to re-read; never backend_error.
func TestTimeoutOnBusyServerResolvesTheOutcome(t *testing.T) {
	srv := ownServer(t, false)
	ctx := context.Background()
	setup := mustNew(t, newClient(t, srv.Addr()))
	s, err := plan.NewStore(&plan.StoreConfig{Backend: setup})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, plan.Update{Name: "release", Content: ptr("- [ ] build\n- [ ] ship")}); err != nil {
		t.Fatal(err)
	}

	short := redis.NewClient(&redis.Options{Addr: srv.Addr(), ReadTimeout: 150 * time.Millisecond,
		WriteTimeout: 150 * time.Millisecond, MaxRetries: -1, ContextTimeoutEnabled: true})
	defer short.Close()
	b := &busyBeforeFirstSwap{Backend: mustNew(t, short), reads: setup, other: newClient(t, srv.Addr()), busy: 400 * time.Millisecond}
	defer b.wg.Wait()
	var changes []plan.Change
	var mu sync.Mutex
	mw, err := plan.New(ctx, &plan.Config{Backend: b, AgentName: "worker", OnChange: func(_ context.Context, c plan.Change) {
		mu.Lock()
		changes = append(changes, c)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	m := plantest.NewScriptedModel(
		plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":1,"status":"completed"}`),
		plantest.Answer("done"),
	)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "worker", Description: "works", Instruction: "You work.", Model: m,
		Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	results := plantest.RunAgent(t, ctx, agent, "mark the build done")
	if !b.once.Load() {
		t.Fatal("the tool never reached a compare-and-swap: the server was never made busy")
	}
	if len(results) != 1 {
		t.Fatalf("tool results %q, want 1", results)
	}
	got, err := s.Get(ctx, "release")
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	switch code := plantest.ErrorCode(t, results[0]); code {
	case "":
		t.Logf("success: %s", results[0])
		if len(changes) != 1 || got.Revision != 2 || got.Content != "- [x] build\n- [ ] ship" {
			t.Fatalf("success with changes %+v and plan %+v; want one Change and revision 2 with step 1 done", changes, got)
		}
		if r1, err := s.GetRevision(ctx, "release", 1); err != nil || r1.Content != "- [ ] build\n- [ ] ship" {
			t.Fatalf("revision 1 = %+v, %v; want it kept by the swap that replaced it", r1, err)
		}
	case string(plan.CodeUnknownOutcome):
		t.Logf("unknown_outcome: %s (plan at revision %d)", results[0], got.Revision)
	default:
		t.Fatalf("tool result %s; want success or unknown_outcome", results[0])
	}
}
